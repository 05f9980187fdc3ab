// Package kv holds the three key-value workloads of the published in-memory
// NewSQL vs NoSQL comparison (docs/EXPERIMENTS.md E5), each registered as a
// workload of its own:
//
//   - kv-basic (KV-1): a table of (kv_key VARCHAR(50) PRIMARY KEY, payload)
//     with 500,000 pairs and 12288-byte payloads. An operation draws two keys
//     A and B uniformly from the loaded pairs and then, with probability 1/2,
//     reads A's payload (operation READ), otherwise replaces B's payload with
//     new random bytes (operation WRITE).
//   - kv-ints (KV-2): a table of (kv_key VARCHAR(50) PRIMARY KEY, c0..c49
//     INTEGER) with 500,000 rows. An operation (PAIR) draws one key and two
//     column indexes A and B uniformly in 0..49, reads column A (READ) and,
//     when that value is odd, writes a new random 32-bit integer into column
//     B of the same row (WRITE). The read and the write are two autocommitted
//     statements.
//   - kv-ints-batch (KV-3): as kv-ints with batch (10) pairs per operation
//     (BATCH) on the same row, atomically: BEGIN; for each pair read A and,
//     when odd, update B; COMMIT. Isolation is the session's (--isolation).
//     On VoltDB, which has no BEGIN/COMMIT across calls, the pairs are one
//     call of a SQL procedure declared with the table
//     (dialect.KVIntsProcedure): one VoltDB transaction.
//
// # Interpretation
//
// The published KV-1 "picks 2 random keys A and B; with probability 1/2 it
// fetches the payload of one key, otherwise it replaces the payload of the
// other". candor draws both keys for every operation, in that order, then
// the coin; a read uses A and discards B, a write uses B and discards A. Both
// draws are kept so the random stream, and so the keys chosen, follow the
// published description.
//
// In kv-ints and kv-ints-batch every choice — key, column indexes and the
// new value of every pair — is drawn before the operation runs, whatever the
// reads will return, so the random stream depends only on the seed. WRITE is
// recorded (and counted) only when a write happens. The counters "reads" and
// "odd_writes" count statements that took effect: for kv-ints each statement
// as it succeeds (so when a failed write is retried, the operation's read
// counts again), for kv-ints-batch a transaction's statements once its
// COMMIT succeeds. On random data about half the reads are odd, so
// reads:odd_writes ≈ 2:1.
//
// # Keys and values
//
// The key of record n is 'k' followed by n in decimal, zero-padded to
// key-size-1 digits: exactly key-size bytes (50 by default,
// "k0000000000000000000000000000000000000000000000042"). Records are
// 0..pairs-1 (kv-basic) or 0..rows-1 (kv-ints). Payloads are random bytes
// from the worker's or loader's generator, stored in the dialect's binary
// type (BYTEA, BLOB, MEDIUMBLOB); integers are uniform over the 32-bit range,
// so half are odd.
//
// # Loading
//
// The loader uses COPY when the connection is a target.Copier, else
// multi-row INSERTs within the bind-parameter limit. MaxLoadBatch also caps a
// batch at about 4 MiB of row data (341 rows of 12 KB payloads), so a load
// batch never builds a huge statement or COPY buffer.
package kv

import (
	"fmt"
	"math/rand"

	"github.com/candor-bench/candor/internal/workload"
)

// Registered workload names.
const (
	NameBasic = "kv-basic"
	NameInts  = "kv-ints"
	NameBatch = "kv-ints-batch"
)

// Reference names of what the workloads reproduce.
const (
	ReferenceBasic = "KV-1 basic key-value (docs/EXPERIMENTS.md E5)"
	ReferenceInts  = "KV-2 many integer columns (docs/EXPERIMENTS.md E5)"
	ReferenceBatch = "KV-3 batched, atomic (docs/EXPERIMENTS.md E5)"
)

// maxBatchBytes caps the row data of one load batch (see MaxLoadBatch).
const maxBatchBytes = 4 << 20

func init() {
	workload.Register(workload.Entry{
		Name:        NameBasic,
		Description: "KV-1: 50-byte keys, 12 KB payloads; 1/2 read one key's payload, 1/2 replace another's",
		Reference:   ReferenceBasic,
		Options: []workload.Option{
			{Name: "pairs", Default: fmt.Sprint(DefaultRecords), Usage: "key-value pairs loaded"},
			{Name: "key-size", Default: fmt.Sprint(DefaultKeySize), Usage: "key length in bytes (zero-padded record number)"},
			{Name: "value-size", Default: fmt.Sprint(DefaultValueSize), Usage: "payload length in bytes"},
			{Name: "table", Default: DefaultBasicTable, Usage: "table name"},
		},
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return NewBasic(files, props)
		},
	})
	workload.Register(workload.Entry{
		Name:        NameInts,
		Description: "KV-2: 50 integer columns; read column A, write a random integer into column B when A is odd",
		Reference:   ReferenceInts,
		Options:     intsOptions(false),
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return NewInts(files, props)
		},
	})
	workload.Register(workload.Entry{
		Name:        NameBatch,
		Description: "KV-3: kv-ints with 10 read/odd/write pairs on one row per operation, in one transaction",
		Reference:   ReferenceBatch,
		Options:     intsOptions(true),
		New: func(variant string, files, props []string) (workload.Workload, error) {
			return NewBatch(files, props)
		},
	})
}

func intsOptions(batch bool) []workload.Option {
	table := DefaultIntsTable
	if batch {
		table = DefaultBatchTable
	}
	o := []workload.Option{
		{Name: "rows", Default: fmt.Sprint(DefaultRecords), Usage: "rows loaded"},
		{Name: "key-size", Default: fmt.Sprint(DefaultKeySize), Usage: "key length in bytes (zero-padded record number)"},
		{Name: "columns", Default: fmt.Sprint(DefaultColumns), Usage: "integer columns per row"},
		{Name: "table", Default: table, Usage: "table name"},
	}
	if batch {
		o = append(o, workload.Option{Name: "batch", Default: fmt.Sprint(DefaultBatch), Usage: "read/odd/write pairs per transaction"},
			workload.Option{Name: "atomicity", Default: AtomicityTransaction,
				Usage: "how a batch's writes are made atomic: transaction (BEGIN ... COMMIT), logged (one logged CQL BATCH of the writes), unlogged (one unlogged BATCH), none (each write on its own)"})
	}
	return o
}

// loadRows is the rows per load statement: the bind-parameter limit of a
// multi-row INSERT (1 without multi-row INSERT, none with COPY), and at most
// maxBatchBytes of row data. 0 means no limit.
func loadRows(env workload.Env, perRow, rowBytes int) (insertRows, maxBatch int, err error) {
	limit := env.Dialect.MaxBindParams
	if p := env.Capabilities.MaxBindParams; p > 0 && (limit == 0 || p < limit) {
		limit = p
	}
	if limit > 0 && perRow > limit {
		return 0, 0, fmt.Errorf("a row needs %d bind parameters, more than the target's limit of %d", perRow, limit)
	}
	byBytes := max(1, maxBatchBytes/max(rowBytes, 1))
	switch {
	case !env.Capabilities.MultiRowInsert:
		insertRows = 1
	case limit > 0:
		insertRows = min(limit/perRow, byBytes)
	default:
		insertRows = byBytes
	}
	maxBatch = insertRows
	if env.Capabilities.CopyFrom {
		maxBatch = byBytes
	}
	return insertRows, maxBatch, nil
}

// checkDialect rejects an Env whose dialect is unset.
func checkDialect(name string, env workload.Env) error {
	if env.Dialect.Placeholder == "" {
		return fmt.Errorf("%s: the target's dialect is not set (no placeholder style)", name)
	}
	return nil
}

// fillRandom fills b with random bytes from r, eight per draw.
func fillRandom(r *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		u := r.Uint64()
		for k := 0; k < 8 && i+k < len(b); k++ {
			b[i+k] = byte(u)
			u >>= 8
		}
	}
}

// randomInt32 is a uniform 32-bit integer (negative ones included).
func randomInt32(r *rand.Rand) int64 { return int64(int32(r.Uint32())) }
