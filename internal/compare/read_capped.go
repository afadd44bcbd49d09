package compare

import (
	"fmt"
	"io"
	"net/http"
)

// MaxResponseBytes bounds one answer of the store: compare's answers are a
// few series of a few thousand points (kilobytes); a 300 MB answer, from a
// wrong URL or a hostile server, took 2 GB of memory to decode.
const MaxResponseBytes = 64 << 20

// CappedTransport is rt (nil: http.DefaultTransport) whose response bodies
// end in an error after max bytes, naming the cap.
func CappedTransport(rt http.RoundTripper, max int64) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return cappedTransport{rt, max}
}

type cappedTransport struct {
	rt  http.RoundTripper
	max int64
}

func (c cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > c.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%s answered %d bytes, more than the %d an answer may have", req.URL.Redacted(), resp.ContentLength, c.max)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: c.max, max: c.max, url: req.URL.Redacted()}
	return resp, nil
}

type cappedBody struct {
	rc        io.ReadCloser
	left, max int64
	url       string
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%s answered more than the %d bytes an answer may have", b.url, b.max)
		}
		return b.rc.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
