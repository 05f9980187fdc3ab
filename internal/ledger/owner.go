package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Owner identifies the ledger a table holds: the run that created the
// table and the repetition of that run (--repeat; 1 without). A ledger
// table carries its owner in a row of its own (the ledger workload: id -1,
// docs/FAULTS.md, "Whose ledger a table holds"), the ledger directory in
// OwnerFile, and the result in its ledger section; candor ledger verify
// reads ids back only from a table whose owner is the result's.
//
// Run is the result's id, or for the shards of one run (--shard i/N) the
// run id they share: the shards write one table together.
type Owner struct {
	Run string
	Rep int
}

// MaxOwnerText bounds Owner.String: a longer run id is replaced by its
// hash, so the text fits the owner row's column.
const MaxOwnerText = 200

// String is the owner as recorded: "candor-ledger run=RUN rep=N".
func (o Owner) String() string {
	run := o.Run
	s := fmt.Sprintf("candor-ledger run=%s rep=%d", run, o.Rep)
	if len(s) > MaxOwnerText || strings.ContainsAny(run, " \t\n") {
		h := sha256.Sum256([]byte(run))
		s = fmt.Sprintf("candor-ledger run=sha256:%s rep=%d", hex.EncodeToString(h[:16]), o.Rep)
	}
	return s
}

// Describe is the owner in words, for messages.
func (o Owner) Describe() string {
	run, rep := o.fields()
	return fmt.Sprintf("run %s, repetition %d", run, rep)
}

func (o Owner) fields() (string, int) {
	f := strings.Fields(o.String())
	return strings.TrimPrefix(f[1], "run="), o.Rep
}

// SameRun reports whether o and p were written by one run (any
// repetition).
func (o Owner) SameRun(p Owner) bool {
	a, _ := o.fields()
	b, _ := p.fields()
	return a == b
}

// ErrNotOwner means a text is not an owner's.
var ErrNotOwner = errors.New("not a candor ledger owner")

// ParseOwner reads Owner.String's text.
func ParseOwner(s string) (Owner, error) {
	f := strings.Fields(s)
	if len(f) != 3 || f[0] != "candor-ledger" || !strings.HasPrefix(f[1], "run=") || !strings.HasPrefix(f[2], "rep=") {
		return Owner{}, fmt.Errorf("%w: %q", ErrNotOwner, s)
	}
	rep, err := strconv.Atoi(strings.TrimPrefix(f[2], "rep="))
	if err != nil || rep < 1 {
		return Owner{}, fmt.Errorf("%w: %q", ErrNotOwner, s)
	}
	return Owner{Run: strings.TrimPrefix(f[1], "run="), Rep: rep}, nil
}

// OwnerFile is the file of a ledger directory that names its owner,
// written before the run's first write (it is there after a crash of
// candor too).
const OwnerFile = "owner"

// WriteOwner records o in dir (created if missing).
func WriteOwner(dir string, o Owner) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, OwnerFile), []byte(o.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// ReadOwner reads the owner a ledger directory names; ok is false when it
// names none (a ledger written by a candor older than owners).
func ReadOwner(dir string) (o Owner, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, OwnerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Owner{}, false, nil
	}
	if err != nil {
		return Owner{}, false, fmt.Errorf("ledger: %w", err)
	}
	o, err = ParseOwner(strings.TrimSpace(string(b)))
	if err != nil {
		return Owner{}, false, fmt.Errorf("ledger: %s: %w", filepath.Join(dir, OwnerFile), err)
	}
	return o, true, nil
}

// ReadBackFile keeps the ids a run read back from the server for its
// accounting (each id as often as it was found): candor merge accounts
// for the shards' ledgers together from them.
const ReadBackFile = "readback.ids"

const readBackMagic = "CDLREAD1"

// WriteReadBack records the ids read back (present: id → rows found) in
// dir, sorted, as 8-byte little-endian ids after an 8-byte magic.
func WriteReadBack(dir string, present map[int64]int) error {
	ids := make([]int64, 0, len(present))
	for id := range present {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	buf := make([]byte, 0, len(magic)+8*len(ids))
	buf = append(buf, readBackMagic...)
	for _, id := range ids {
		for range present[id] {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
		}
	}
	path := filepath.Join(dir, ReadBackFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf, 0o644); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// ReadReadBack reads the ids WriteReadBack recorded in dir.
func ReadReadBack(dir string) (map[int64]int, error) {
	path := filepath.Join(dir, ReadBackFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if len(b) < len(readBackMagic) || string(b[:len(readBackMagic)]) != readBackMagic || (len(b)-len(readBackMagic))%8 != 0 {
		return nil, fmt.Errorf("ledger: %s is not a read-back file", path)
	}
	present := map[int64]int{}
	for p := b[len(readBackMagic):]; len(p) > 0; p = p[8:] {
		present[int64(binary.LittleEndian.Uint64(p))]++
	}
	return present, nil
}

// ShardWriters is the number of writer numbers each shard of a run owns:
// shard i's workers are numbered from i×ShardWriters, whatever the
// --threads of each shard, so the shards of one run write distinct ids even
// when they were started with different options. 4096 workers per shard
// and, with the 2^23 worker numbers of an id, 2048 shards.
const ShardWriters = 1 << 12

// MaxShards is the number of shards whose writer numbers fit an id.
const MaxShards = 1 << (63 - seqBits) / ShardWriters

// ShardFirst is the number of shard i's first writer.
func ShardFirst(i int) int { return i * ShardWriters }

// Writers is the range of writer (worker) numbers whose ids a ledger
// holds: shard i's workers are numbered from ShardFirst(i), so the shards
// of one run write distinct ids.
type Writers struct {
	First int `json:"first"`
	Count int `json:"count"`
}

// Holds reports whether id was written by one of the writers.
func (w Writers) Holds(id int64) bool {
	k, _ := SplitID(id)
	return k >= w.First && k < w.First+w.Count
}

// Only keeps, of present, the ids of the writers w (nil w: all of them).
func Only(present map[int64]int, w *Writers) map[int64]int {
	if w == nil {
		return present
	}
	out := make(map[int64]int, len(present))
	for id, n := range present {
		if w.Holds(id) {
			out[id] = n
		}
	}
	return out
}

// TableFile is the file of a ledger directory that records its table's
// identity as the database knows it (target.TableIdentity), written before
// the run's first write: after a crash of candor the result that is
// rebuilt records none, and a ledger whose table holds no owner row
// (commit-loop --ledger) has nothing else tying the table to the run.
const TableFile = "table-identity"

// WriteTableIdentity records the ledger table's identity in dir.
func WriteTableIdentity(dir, identity string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, TableFile), []byte(identity+"\n"), 0o644); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// ReadTableIdentity reads the table identity dir records; "" when it
// records none (a ledger of an older candor, or of a product that gives
// no identity).
func ReadTableIdentity(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, TableFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("ledger: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
