package result

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Summarize reduces a histogram to a Summary; nil for an empty histogram.
func Summarize(h *hdr.Histogram) *Summary {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	p := h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	return &Summary{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), P50: p[0], P90: p[1], P95: p[2], P99: p[3], P999: p[4], Max: h.Max()}
}

// EncodeHistogram returns the HdrHistogram V2 compressed base64 text.
func EncodeHistogram(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// DecodeHistogram reads a histogram written by EncodeHistogram (or by any
// HdrHistogram implementation's V2 compressed encoding).
func DecodeHistogram(s string) (*hdr.Histogram, error) { return hdr.Decode([]byte(s)) }

// MergeHistograms decodes and merges the given series of several OpResults
// (for instance the same operation from N client shards). Missing series are
// skipped.
func MergeHistograms(series string, ops ...OpResult) (*hdr.Histogram, error) {
	var out *hdr.Histogram
	for _, o := range ops {
		enc := o.Histograms[series]
		if enc == "" {
			continue
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = h
			continue
		}
		out.Merge(h)
	}
	return out, nil
}
