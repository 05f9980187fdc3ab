// Package elle checks a list-append history for isolation anomalies the way
// Elle does (Kingsbury and Alvaro, VLDB 2020): it infers write-write,
// write-read and read-write dependencies between transactions from the
// lists they read, finds the cycles of that graph and names them (G0, G1c,
// G-single, G2-item), and reports the anomalies a single transaction or
// read shows without a cycle (G1a, G1b, internal inconsistency, duplicate
// elements, incompatible orders). It is pure: no I/O, no clock.
package elle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Function names of a micro-operation.
const (
	FuncAppend = "append"
	FuncRead   = "r"
)

// Op is one micro-operation: append Value to Key's list, or read Key's
// whole list (List; nil when the transaction's outcome is not ok and the
// read is unknown).
type Op struct {
	Func  string
	Key   int64
	Value int64   // append
	List  []int64 // read
}

// Outcome is what the client learnt of a transaction's commit.
type Outcome uint8

// Outcomes. Unknown means possibly committed: the client lost the answer
// (a timeout, a broken connection) and the transaction may have happened.
const (
	OK Outcome = iota
	Fail
	Unknown
)

var outcomeNames = [...]string{OK: "ok", Fail: "fail", Unknown: "unknown"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// ParseOutcome reads an outcome's name.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("outcome %q: use ok, fail or unknown", s)
}

// Txn is one transaction of the history. IDs are unique in a history;
// Session is the client session that ran it; Start and End are when the
// client began it and learnt its outcome.
type Txn struct {
	ID      int64
	Session int
	Outcome Outcome
	Start   time.Time
	End     time.Time
	Ops     []Op
}

// String renders t for a reader: "T7 (ok: r 3 [1 2], append 3 4)".
func (t *Txn) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "T%d (%s: ", t.ID, t.Outcome)
	for i, op := range t.Ops {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(op.String())
	}
	b.WriteString(")")
	return b.String()
}

// String renders one micro-operation: "append 3 4", "r 3 [1 2]", "r 3 ?".
func (op Op) String() string {
	if op.Func == FuncAppend {
		return fmt.Sprintf("append %d %d", op.Key, op.Value)
	}
	if op.List == nil {
		return fmt.Sprintf("r %d ?", op.Key)
	}
	return fmt.Sprintf("r %d %s", op.Key, listString(op.List))
}

func listString(l []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// jsonTxn is one line of a history file (docs/ISOLATION.md): ops are
// [f, k, v] triples as Elle writes them, v a number for an append and a
// list (or null, unknown) for a read.
type jsonTxn struct {
	ID      int64             `json:"id"`
	Session int               `json:"session"`
	Outcome string            `json:"outcome"`
	Start   time.Time         `json:"start"`
	End     time.Time         `json:"end"`
	Ops     []json.RawMessage `json:"ops"`
}

// MarshalJSON writes t as one history line.
func (t Txn) MarshalJSON() ([]byte, error) {
	j := jsonTxn{ID: t.ID, Session: t.Session, Outcome: t.Outcome.String(), Start: t.Start, End: t.End}
	for _, op := range t.Ops {
		var raw []byte
		var err error
		if op.Func == FuncAppend {
			raw, err = json.Marshal([]any{op.Func, op.Key, op.Value})
		} else {
			raw, err = json.Marshal([]any{op.Func, op.Key, op.List})
		}
		if err != nil {
			return nil, err
		}
		j.Ops = append(j.Ops, raw)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads one history line.
func (t *Txn) UnmarshalJSON(b []byte) error {
	var j jsonTxn
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	o, err := ParseOutcome(j.Outcome)
	if err != nil {
		return fmt.Errorf("transaction %d: %w", j.ID, err)
	}
	*t = Txn{ID: j.ID, Session: j.Session, Outcome: o, Start: j.Start, End: j.End}
	for i, raw := range j.Ops {
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 3 {
			return fmt.Errorf("transaction %d op %d: want [f, key, value], got %s", j.ID, i, raw)
		}
		var op Op
		if err := json.Unmarshal(parts[0], &op.Func); err != nil {
			return fmt.Errorf("transaction %d op %d: function: %w", j.ID, i, err)
		}
		if err := json.Unmarshal(parts[1], &op.Key); err != nil {
			return fmt.Errorf("transaction %d op %d: key: %w", j.ID, i, err)
		}
		switch op.Func {
		case FuncAppend:
			err = json.Unmarshal(parts[2], &op.Value)
		case FuncRead:
			err = json.Unmarshal(parts[2], &op.List)
			if err == nil && op.List == nil && string(parts[2]) != "null" {
				op.List = []int64{}
			}
		default:
			err = fmt.Errorf("function %q: use append or r", op.Func)
		}
		if err != nil {
			return fmt.Errorf("transaction %d op %d: %w", j.ID, i, err)
		}
		t.Ops = append(t.Ops, op)
	}
	return nil
}

// WriteHistory writes txns as JSON lines.
func WriteHistory(w io.Writer, txns []Txn) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range txns {
		if err := enc.Encode(txns[i]); err != nil {
			return fmt.Errorf("history line %d: %w", i+1, err)
		}
	}
	return bw.Flush()
}

// ReadHistory reads a history written by WriteHistory.
func ReadHistory(r io.Reader) ([]Txn, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var out []Txn
	line := 0
	for sc.Scan() {
		line++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var t Txn
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("history line %d: %w", line, err)
		}
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history line %d: %w", line+1, err)
	}
	return out, nil
}
