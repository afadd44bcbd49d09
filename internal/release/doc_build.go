// Package release: how a build is versioned and made reproducible (moved from docs/install.md).
//
// # Version
//
// The version is the VERSION file at the repository's root, as the
// Prometheus projects keep theirs, not `git describe`: a shallow clone or a
// clone without tags describes the same commit differently, and a tag added
// later would change what an old commit builds. A release bumps VERSION and
// tags the commit vVERSION.
//
// `--version` prints what the Prometheus exporters print (version, revision,
// build date, go version, platform). The build date is the commit's date (or
// SOURCE_DATE_EPOCH), not the time of the build. There is no build user and
// no branch: the user would make two builds differ, and a commit has no
// single branch.
//
// # Reproducible
//
// Two `make dist` of one commit write the same bytes, archives and packages
// alike: `go build -trimpath -buildvcs=false` with a fixed environment
// (CGO_ENABLED=0, GOAMD64=v1, GOARM64=v8.0, no GOFLAGS of the caller),
// version, commit and date passed with -X; archive members sorted, all dated
// with the commit, owner 0, no gzip name or time; packages dated with the
// commit and built on host "reproducible". Same Go toolchain (go.mod's
// toolchain line), same bytes. The packages are built by nfpm as a Go
// library, so no packaging tool has to be installed.
package release
