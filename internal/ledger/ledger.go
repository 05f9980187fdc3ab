// Package ledger keeps, client-side, the outcome of every write of a run —
// acknowledged, failed (the server said no) or unknown (the connection died
// before the commit's answer) — and, after the run, accounts for them
// against the ids read back from the server: lost acknowledged writes, how
// unknown writes resolved, RPO and RTO around a fault.
//
// # Files
//
// Each worker owns one Writer and one file, ledger-wNNNNN.cdl in the run's
// ledger directory; nothing is shared between workers, so appending takes no
// lock. A file is a 32-byte header (magic "CDLEDGR1", worker, run start)
// followed by fixed 32-byte little-endian records: id int64, start int64,
// end int64 (Unix nanoseconds), worker uint32, outcome uint8, 3 bytes zero.
// A reader ignores a trailing partial record (a crash during a write) and
// says how many bytes it ignored.
//
// # Durability policy
//
// Append copies the record into the worker's 64 KiB buffer (2,048 records)
// and hands the buffer to the kernel with one write(2) when it is full or
// when FlushInterval (default 200 ms) has passed since the last write,
// judged by the record's own end time (no clock read of its own). Hence:
//   - a crash of candor (SIGKILL, panic, OOM) loses at most, per worker, the
//     records of the last FlushInterval or the last 2,048 records, whichever
//     is fewer; everything handed to the kernel survives the process;
//   - a crash of the machine can lose what the kernel had not written back:
//     Close fsyncs, nothing else does (an fsync per interval would cost the
//     client more than the writes it measures);
//   - writes whose records were lost are not invisible afterwards: ids are
//     (worker, sequence) pairs, so ids on the server with no record are
//     counted as unrecorded by Account.
package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Outcome is what the client knows about one write.
type Outcome uint8

const (
	Acknowledged Outcome = 1 // the commit returned success
	Failed       Outcome = 2 // the server answered with an error: not committed, as far as the client knows
	Unknown      Outcome = 3 // no answer (connection lost, timeout): it may or may not be committed
)

func (o Outcome) String() string {
	switch o {
	case Acknowledged:
		return "acknowledged"
	case Failed:
		return "failed"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// Record is one write. Times are Unix nanoseconds (wall clock), so they
// compare with fault events recorded by other processes.
type Record struct {
	ID      int64   // unique in the run; see ID
	Start   int64   // when the write was sent (or, open loop, was due)
	End     int64   // when its outcome was known
	Worker  uint32  // the worker that wrote it
	Outcome Outcome // acknowledged, failed or unknown
}

// seqBits is the width of the per-worker sequence in an id: 2^40 writes per
// worker, 2^23 workers.
const seqBits = 40

// ID makes a run-unique, positive write id from a worker number and that
// worker's sequence number (from 0). Ids from one worker increase, so a
// reader can tell which writes of a worker went unrecorded.
func ID(worker int, seq int64) int64 { return int64(worker)<<seqBits | seq&(1<<seqBits-1) }

// SplitID undoes ID.
func SplitID(id int64) (worker int, seq int64) { return int(id >> seqBits), id & (1<<seqBits - 1) }

const (
	magic      = "CDLEDGR1"
	headerSize = 32
	recordSize = 32
	bufRecords = 2048
	// DefaultFlushInterval bounds what a crash of candor can lose per worker.
	DefaultFlushInterval = 200 * time.Millisecond
)

// FileName is the ledger file of a worker inside a ledger directory.
func FileName(worker int) string { return fmt.Sprintf("ledger-w%05d.cdl", worker) }

// Header is the start of each ledger file.
type Header struct {
	Worker   uint32
	RunStart int64 // Unix nanoseconds
}

// Writer appends one worker's records. Not safe for concurrent use: one
// Writer per worker.
type Writer struct {
	f         *os.File
	buf       []byte
	worker    uint32
	interval  int64
	lastFlush int64
	err       error
}

// Create starts worker's ledger file in dir (created if missing). It
// refuses to overwrite an existing ledger: a ledger is evidence.
// flushInterval 0 means DefaultFlushInterval.
func Create(dir string, worker int, runStart time.Time, flushInterval time.Duration) (*Writer, error) {
	if worker < 0 || worker >= 1<<23 {
		return nil, fmt.Errorf("ledger: worker %d out of range", worker)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	path := filepath.Join(dir, FileName(worker))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ledger: creating %s: %w", path, err)
	}
	if flushInterval <= 0 {
		flushInterval = DefaultFlushInterval
	}
	var h [headerSize]byte
	copy(h[:], magic)
	binary.LittleEndian.PutUint32(h[8:], uint32(worker))
	binary.LittleEndian.PutUint64(h[16:], uint64(runStart.UnixNano()))
	if _, err := f.Write(h[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: writing %s: %w", path, err)
	}
	return &Writer{f: f, buf: make([]byte, 0, bufRecords*recordSize), worker: uint32(worker),
		interval: int64(flushInterval), lastFlush: runStart.UnixNano()}, nil
}

// Append records one write. It returns an error only when handing records
// to the kernel failed (then, and from then on: the ledger is incomplete
// and the run must say so).
func (w *Writer) Append(id, start, end int64, o Outcome) error {
	if w.err != nil {
		return w.err
	}
	var r [recordSize]byte
	binary.LittleEndian.PutUint64(r[0:], uint64(id))
	binary.LittleEndian.PutUint64(r[8:], uint64(start))
	binary.LittleEndian.PutUint64(r[16:], uint64(end))
	binary.LittleEndian.PutUint32(r[24:], w.worker)
	r[28] = byte(o)
	w.buf = append(w.buf, r[:]...)
	if len(w.buf) == cap(w.buf) || end-w.lastFlush >= w.interval {
		w.lastFlush = end
		return w.flush()
	}
	return nil
}

func (w *Writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.f.Write(w.buf); err != nil {
		w.err = fmt.Errorf("ledger: writing %s: %w", w.f.Name(), err)
		return w.err
	}
	w.buf = w.buf[:0]
	return nil
}

// Flush hands buffered records to the kernel now (e.g. at the end of a
// phase).
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.flush()
}

// Close flushes, fsyncs and closes the file.
func (w *Writer) Close() error {
	err := w.Flush()
	if serr := w.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("ledger: fsync %s: %w", w.f.Name(), serr)
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("ledger: closing %s: %w", w.f.Name(), cerr)
	}
	return err
}

// ErrNotLedger means a file does not start with the ledger header.
var ErrNotLedger = errors.New("not a candor ledger file")

// ReadInfo describes what a read found.
type ReadInfo struct {
	Files         int   // ledger files read
	Records       int   // whole records read
	TruncatedTail int64 // bytes of partial records ignored (a crash mid-write)
}

// Read reads one ledger file.
func Read(r io.Reader) (Header, []Record, ReadInfo, error) {
	var h Header
	var info ReadInfo
	data, err := io.ReadAll(r)
	if err != nil {
		return h, nil, info, err
	}
	if len(data) < headerSize || string(data[:8]) != magic {
		return h, nil, info, ErrNotLedger
	}
	h.Worker = binary.LittleEndian.Uint32(data[8:])
	h.RunStart = int64(binary.LittleEndian.Uint64(data[16:]))
	body := data[headerSize:]
	n := len(body) / recordSize
	info.TruncatedTail = int64(len(body) - n*recordSize)
	recs := make([]Record, n)
	for i := range recs {
		b := body[i*recordSize:]
		recs[i] = Record{
			ID:      int64(binary.LittleEndian.Uint64(b[0:])),
			Start:   int64(binary.LittleEndian.Uint64(b[8:])),
			End:     int64(binary.LittleEndian.Uint64(b[16:])),
			Worker:  binary.LittleEndian.Uint32(b[24:]),
			Outcome: Outcome(b[28]),
		}
	}
	info.Files, info.Records = 1, n
	return h, recs, info, nil
}

// ReadDir reads every worker's file in a ledger directory, records in file
// (worker) order.
func ReadDir(dir string) ([]Record, ReadInfo, error) {
	var total ReadInfo
	names, err := filepath.Glob(filepath.Join(dir, "ledger-w*.cdl"))
	if err != nil {
		return nil, total, err
	}
	if len(names) == 0 {
		return nil, total, fmt.Errorf("ledger: no ledger files (ledger-w*.cdl) in %s", dir)
	}
	sort.Strings(names)
	var all []Record
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, total, fmt.Errorf("ledger: %w", err)
		}
		_, recs, info, err := Read(f)
		f.Close()
		if err != nil {
			return nil, total, fmt.Errorf("ledger: %s: %w", name, err)
		}
		all = append(all, recs...)
		total.Files++
		total.Records += info.Records
		total.TruncatedTail += info.TruncatedTail
	}
	return all, total, nil
}
