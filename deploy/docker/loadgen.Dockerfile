# walab loadgen: static Go binary, runs as an unprivileged user.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/walab-loadgen ./loadgen

FROM alpine:3.20
RUN adduser -D -u 10001 walab
COPY --from=build /out/walab-loadgen /usr/local/bin/walab-loadgen
EXPOSE 10132
USER 10001
ENTRYPOINT ["/usr/local/bin/walab-loadgen"]
