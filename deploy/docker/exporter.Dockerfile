# walab exporter: static Go binary on a small base. It must run as root
# (privileged in compose, a privileged DaemonSet in k8s): NVMe admin
# passthrough ioctls need CAP_SYS_ADMIN on the /dev/nvmeX character device.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/walab-exporter ./exporter

FROM alpine:3.20
# wget (busybox) serves the compose healthcheck.
COPY --from=build /out/walab-exporter /usr/local/bin/walab-exporter
EXPOSE 9910
USER root
ENTRYPOINT ["/usr/local/bin/walab-exporter"]
