package kv

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/internal/target"
	"github.com/candor-bench/candor/internal/workload"
)

// Defaults and bounds of the options. The sizes are the published ones
// (docs/EXPERIMENTS.md E5): 500,000 pairs or rows, 50-byte keys, 12 KB
// payloads (12288 bytes), 50 integer columns, 10 pairs per batch.
const (
	DefaultRecords   = 500000
	DefaultKeySize   = 50
	DefaultValueSize = 12288
	DefaultColumns   = 50
	DefaultBatch     = 10

	// MaxKeySize keeps the key column a VARCHAR every product indexes
	// (MySQL's 3072-byte index limit holds 255 four-byte characters).
	MaxKeySize = 255
	// MaxValueSize bounds a payload at 1 MiB: it fits MySQL's MEDIUMBLOB and
	// any server's default packet size with room to spare.
	MaxValueSize = 1 << 20
	// MaxColumns stays under every product's column limit (PostgreSQL 1600,
	// SQLite 2000, MySQL 4096) with the key column added.
	MaxColumns = 1000
	// MaxBatch bounds the pairs of one kv-ints-batch transaction.
	MaxBatch = 10000
)

// Default table names, one per workload so the three never share data by
// accident (give --table to share one table between kv-ints and
// kv-ints-batch).
const (
	DefaultBasicTable = "kv_basic"
	DefaultIntsTable  = "kv_ints"
	DefaultBatchTable = "kv_ints_batch"
)

// operationCount is the property the CLI adds for --operations (as YCSB's
// operationcount); every KV workload accepts it as its operation limit.
const operationCount = "operationcount"

// props holds name=value options after the later-wins merge, and collects
// every problem found while reading them.
type props struct {
	vals map[string]string
	errs []error
}

// parseProps reads name=value options. Names are case-insensitive and
// underscores count as dashes (key_size = key-size), as the CLI's flags.
// Unknown names, a missing '=' and property files are errors; all are
// returned together.
func parseProps(workloadName string, files, in []string, known []string) *props {
	p := &props{}
	if len(files) > 0 {
		p.errs = append(p.errs, fmt.Errorf("%s takes no property files (%s); give its options as flags (--%s=...) or -p name=value",
			workloadName, strings.Join(files, ", "), known[0]))
	}
	r := workload.ReadOptions(workloadName, slices.Sorted(slices.Values(known)), []string{operationCount}, in)
	p.vals, p.errs = r.Values, append(p.errs, r.Errs...)
	return p
}

func (p *props) fail(key, format string, args ...any) {
	v, set := p.vals[key]
	msg := fmt.Sprintf(format, args...)
	if set {
		p.errs = append(p.errs, fmt.Errorf("%s=%q: %s", key, v, msg))
	} else {
		p.errs = append(p.errs, fmt.Errorf("%s (default): %s", key, msg))
	}
}

// int reads a decimal integer in [lo, hi].
func (p *props) int(key string, def, lo, hi int64) int64 {
	s, ok := p.vals[key]
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		p.fail(key, "not an integer; give a whole number such as %d", def)
		return def
	}
	if v < lo || v > hi {
		p.fail(key, "must be between %d and %d", lo, hi)
		return def
	}
	return v
}

func (p *props) table(def string) string {
	t, ok := p.vals["table"]
	if !ok {
		return def
	}
	if err := target.CheckTableName(t); err != nil {
		p.fail("table", "%v", err)
		return def
	}
	return t
}

// keySize reads key-size and checks that it holds every record number.
func (p *props) keySize(records int64) int {
	ks := int(p.int("key-size", DefaultKeySize, 2, MaxKeySize))
	if need := KeyWidth(records); ks < need {
		p.fail("key-size", "too small for %d records: the keys need %d characters ('k' and %d digits); raise key-size or lower the record count",
			records, need, need-1)
		ks = need
	}
	return ks
}

func (p *props) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return errors.Join(p.errs...)
}

// KeyWidth is the smallest key-size that holds keys of records [0, records):
// 'k' followed by the digits of the largest record number.
func KeyWidth(records int64) int {
	return 1 + len(strconv.FormatInt(max(records-1, 0), 10))
}

// AppendKey appends the key of record n at width size to dst: 'k', then n in
// decimal left-padded with zeros to size-1 digits ("k000…0042", exactly size
// bytes). The padding keeps every key the same length and key order equal to
// record order. n must be ≥ 0 and have at most size-1 digits.
func AppendKey(dst []byte, n int64, size int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	dst = append(dst, 'k')
	for i := len(d) + 1; i < size; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// KeyFormat describes the keys for the result file.
func KeyFormat(size int) string {
	return fmt.Sprintf("'k' + record number in decimal, zero-padded to %d digits (%d bytes)", size-1, size)
}
