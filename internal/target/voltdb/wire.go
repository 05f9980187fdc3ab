package voltdb

// VoltDB's client wire protocol, written from its public description
// ("VoltDB Client Wire Protocol"): TCP, big-endian, signed integers; every
// message is a 4-byte length (of what follows) and then a protocol-version
// byte. This file encodes and decodes messages as byte slices; it does no
// I/O.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
)

// Wire types of parameters and columns.
const (
	typeArray     int8 = -99
	typeNull      int8 = 1
	typeTinyint   int8 = 3
	typeSmallint  int8 = 4
	typeInteger   int8 = 5
	typeBigint    int8 = 6
	typeFloat     int8 = 8
	typeString    int8 = 9
	typeTimestamp int8 = 11
	typeDecimal   int8 = 22
	typeVarbinary int8 = 25
)

// The values that stand for NULL in fixed-size columns.
const (
	nullTinyint  = math.MinInt8
	nullSmallint = math.MinInt16
	nullInteger  = math.MinInt32
	nullBigint   = math.MinInt64
	nullFloat    = -1.7e308 // VoltDB's NULL double: any value at or below it
)

// decimalScale is the fixed scale of VoltDB's DECIMAL (16 bytes, two's
// complement, 12 digits after the point).
const decimalScale = 12

// maxMessage bounds a message's length as VoltDB's own client does (50 MB
// of a result is far beyond what candor reads); a larger length is a
// corrupt stream, not a message to allocate for.
const maxMessage = 64 << 20

// errProtocol marks a message that does not decode: the stream is out of
// step and the connection must be dropped.
var errProtocol = errors.New("voltdb: malformed message")

// Response status codes (ClientResponse).
const (
	StatusSuccess            int8 = 1
	StatusUserAbort          int8 = -1
	StatusGracefulFailure    int8 = -2
	StatusUnexpectedFailure  int8 = -3
	StatusConnectionLost     int8 = -4
	StatusServerUnavailable  int8 = -5
	StatusConnectionTimeout  int8 = -6
	StatusResponseUnknown    int8 = -7
	StatusOperationalFailure int8 = -9
	StatusTxnMispartitioned  int8 = -10
	StatusTxnMisrouted       int8 = -11
	StatusDRTableNotFound    int8 = -12
)

// statusNames are the status codes' names as VoltDB's documentation spells them.
var statusNames = map[int8]string{
	StatusSuccess: "SUCCESS", StatusUserAbort: "USER_ABORT", StatusGracefulFailure: "GRACEFUL_FAILURE",
	StatusUnexpectedFailure: "UNEXPECTED_FAILURE", StatusConnectionLost: "CONNECTION_LOST",
	StatusServerUnavailable: "SERVER_UNAVAILABLE", StatusConnectionTimeout: "CONNECTION_TIMEOUT",
	StatusResponseUnknown: "RESPONSE_UNKNOWN", StatusOperationalFailure: "OPERATIONAL_FAILURE",
	StatusTxnMispartitioned: "TXN_MISPARTITIONED", StatusTxnMisrouted: "TXN_MISROUTED",
	StatusDRTableNotFound: "DR_TABLE_HASH_NOT_FOUND",
}

// StatusName is the name of a status code, or "STATUS_<n>" for one this
// client does not know.
func StatusName(s int8) string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "STATUS_" + strconv.Itoa(int(s))
}

// Exception types of a response's serialised exception (its first byte).
const exceptionConstraint = 3 // ConstraintFailureException

// encoder appends big-endian values to a buffer.
type encoder struct{ b []byte }

func (e *encoder) byte1(v int8)    { e.b = append(e.b, byte(v)) }
func (e *encoder) int16(v int16)   { e.b = binary.BigEndian.AppendUint16(e.b, uint16(v)) }
func (e *encoder) int32(v int32)   { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)) }
func (e *encoder) int64(v int64)   { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }
func (e *encoder) float(v float64) { e.b = binary.BigEndian.AppendUint64(e.b, math.Float64bits(v)) }
func (e *encoder) bytes(v []byte) {
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}
func (e *encoder) string(v string) {
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}

// begin starts a message: room for its length, then the version byte.
func (e *encoder) begin(version int8) {
	e.b = append(e.b[:0], 0, 0, 0, 0)
	e.byte1(version)
}

// finish writes the message's length (all that follows the length field).
func (e *encoder) finish() []byte {
	binary.BigEndian.PutUint32(e.b[:4], uint32(len(e.b)-4))
	return e.b
}

// loginMessage is the login request of protocol version 1: the password's
// SHA-256 hash (hash scheme 1), service "database". VoltDB asks for a login
// even when authentication is off; the user and password are then ignored.
func loginMessage(user, password string) []byte {
	var e encoder
	e.begin(1) // protocol version 1
	e.byte1(1) // password hash scheme: SHA-256
	e.string("database")
	e.string(user)
	h := sha256.Sum256([]byte(password))
	e.b = append(e.b, h[:]...)
	return e.finish()
}

// loginReply is what the server answers a login with.
type loginReply struct {
	Result       int8 // 0: logged in
	HostID       int32
	ConnectionID int64
	ClusterStart int64 // the cluster instance's timestamp (ms)
	LeaderIPv4   int32
	Build        string // "10.1.1 voltdb-10.1.1-0-g..."
}

// loginResults are the login failures' meanings, by result code.
var loginResults = map[int8]string{
	1: "the server has too many connections",
	2: "authentication timed out",
	3: "the login request was malformed",
	4: "the node is rejoining and cannot authenticate yet",
	5: "export is not enabled on the server",
	6: "the server requires TLS",
	7: "the server requires a client certificate",
	8: "the client certificate was revoked",
}

// parseLoginReply decodes a login reply's body (the bytes after the length).
// A reply whose result is not 0 carries nothing more.
func parseLoginReply(body []byte) (loginReply, error) {
	d := decoder{b: body}
	d.byte1() // protocol version
	r := loginReply{Result: d.byte1()}
	if d.err != nil || r.Result != 0 {
		return r, d.err
	}
	r.HostID = d.int32()
	r.ConnectionID = d.int64()
	r.ClusterStart = d.int64()
	r.LeaderIPv4 = d.int32()
	r.Build, _ = d.string()
	return r, d.err
}

// loginError is the error of a login whose result was not 0.
func loginError(result int8) error {
	why, ok := loginResults[result]
	if !ok {
		why = "authentication failed (wrong user or password?)"
	}
	return fmt.Errorf("voltdb: login refused (result %d): %s", result, why)
}

// invocation encodes a call of procedure proc with client handle handle
// and parameters params (version 0 of the invocation message). It fails on
// a parameter of a type the protocol has no encoding for here.
func invocation(buf []byte, proc string, handle int64, params []any) ([]byte, error) {
	e := encoder{b: buf}
	e.begin(0)
	e.string(proc)
	e.int64(handle)
	if len(params) > math.MaxInt16 {
		return nil, fmt.Errorf("voltdb: %d parameters, more than a call carries (%d)", len(params), math.MaxInt16)
	}
	e.int16(int16(len(params)))
	for i, p := range params {
		if err := e.param(p); err != nil {
			return nil, fmt.Errorf("voltdb: parameter %d: %w", i+1, err)
		}
	}
	return e.finish(), nil
}

// param appends one typed parameter value. Go's integer types map to the
// narrowest VoltDB type of their size (int and int64 to BIGINT), float32
// and float64 to FLOAT, string to STRING, []byte to VARBINARY, time.Time to
// TIMESTAMP (microseconds), bool to TINYINT 0/1, nil to NULL; []string and
// []int64 to arrays (procedures such as @SystemCatalog take none, but
// procedures with array parameters do).
func (e *encoder) param(p any) error {
	switch v := p.(type) {
	case nil:
		e.byte1(typeNull)
	case int8:
		e.byte1(typeTinyint)
		e.byte1(v)
	case int16:
		e.byte1(typeSmallint)
		e.int16(v)
	case int32:
		e.byte1(typeInteger)
		e.int32(v)
	case int64:
		e.byte1(typeBigint)
		e.int64(v)
	case int:
		e.byte1(typeBigint)
		e.int64(int64(v))
	case uint8:
		e.byte1(typeSmallint)
		e.int16(int16(v))
	case uint16:
		e.byte1(typeInteger)
		e.int32(int32(v))
	case uint32:
		e.byte1(typeBigint)
		e.int64(int64(v))
	case uint64:
		if v > math.MaxInt64 {
			return fmt.Errorf("%d does not fit VoltDB's BIGINT", v)
		}
		e.byte1(typeBigint)
		e.int64(int64(v))
	case uint:
		if uint64(v) > math.MaxInt64 {
			return fmt.Errorf("%d does not fit VoltDB's BIGINT", v)
		}
		e.byte1(typeBigint)
		e.int64(int64(v))
	case bool:
		e.byte1(typeTinyint)
		if v {
			e.byte1(1)
		} else {
			e.byte1(0)
		}
	case float64:
		e.byte1(typeFloat)
		e.float(v)
	case float32:
		e.byte1(typeFloat)
		e.float(float64(v))
	case string:
		e.byte1(typeString)
		e.string(v)
	case []byte:
		if v == nil {
			e.byte1(typeNull)
			return nil
		}
		e.byte1(typeVarbinary)
		e.bytes(v)
	case time.Time:
		e.byte1(typeTimestamp)
		e.int64(v.UnixMicro())
	case []string:
		e.byte1(typeArray)
		e.byte1(typeString)
		e.int16(int16(len(v)))
		for _, s := range v {
			e.string(s)
		}
	case []int64:
		e.byte1(typeArray)
		e.byte1(typeBigint)
		e.int16(int16(len(v)))
		for _, n := range v {
			e.int64(n)
		}
	default:
		return fmt.Errorf("values of Go type %T have no VoltDB wire type", p)
	}
	return nil
}

// Response is a decoded procedure response.
type Response struct {
	Handle          int64
	Status          int8
	StatusString    string
	AppStatus       int8
	AppStatusString string
	ClusterRTT      int32 // the cluster's round trip, ms
	ExceptionType   int8  // 0: none; 3: constraint failure
	Tables          []Table
}

// Bits of a response's "present fields" byte.
const (
	presentStatusString    = 1 << 5
	presentException       = 1 << 6
	presentAppStatusString = 1 << 7
)

// parseResponse decodes a response's body (the bytes after the length).
func parseResponse(body []byte) (Response, error) {
	d := decoder{b: body}
	d.byte1() // protocol version
	var r Response
	r.Handle = d.int64()
	present := uint8(d.byte1())
	r.Status = d.byte1()
	if present&presentStatusString != 0 {
		r.StatusString, _ = d.string()
	}
	r.AppStatus = d.byte1()
	if present&presentAppStatusString != 0 {
		r.AppStatusString, _ = d.string()
	}
	r.ClusterRTT = d.int32()
	if present&presentException != 0 {
		n := d.int32()
		ex := d.take(int(n))
		if len(ex) > 0 {
			r.ExceptionType = int8(ex[0])
		}
	}
	count := d.int16()
	if d.err == nil && count < 0 {
		d.fail("negative table count")
	}
	for i := 0; i < int(count) && d.err == nil; i++ {
		r.Tables = append(r.Tables, d.table())
	}
	if d.err != nil {
		return Response{}, d.err
	}
	return r, nil
}

// Table is one VoltTable of a response: its columns and its rows, each value
// as text (nil for NULL): integers in decimal, FLOAT as Go's shortest
// representation, DECIMAL with its scale's digits trimmed, TIMESTAMP as
// microseconds since the epoch, strings and VARBINARY as their bytes.
type Table struct {
	Status  int8
	Names   []string
	Types   []int8
	Rows    [][][]byte
	scratch []byte
}

// table decodes one VoltTable: total length, header length, status,
// column count, column types, column names, row count, then rows, each a
// length and its values.
func (d *decoder) table() Table {
	var t Table
	total := d.int32()
	if d.err != nil {
		return t
	}
	body := d.take(int(total))
	if d.err != nil {
		return t
	}
	td := decoder{b: body}
	td.int32() // header length
	t.Status = td.byte1()
	n := int(td.int16())
	if n < 0 {
		td.fail("negative column count")
	}
	for i := 0; i < n && td.err == nil; i++ {
		t.Types = append(t.Types, td.byte1())
	}
	for i := 0; i < n && td.err == nil; i++ {
		s, _ := td.string()
		t.Names = append(t.Names, s)
	}
	rows := int(td.int32())
	if rows < 0 {
		td.fail("negative row count")
	}
	for i := 0; i < rows && td.err == nil; i++ {
		rl := td.int32()
		rd := decoder{b: td.take(int(rl))}
		if td.err != nil {
			break
		}
		row := make([][]byte, n)
		for c := 0; c < n && rd.err == nil; c++ {
			row[c] = rd.value(t.Types[c])
		}
		if rd.err != nil {
			td.err = rd.err
		}
		t.Rows = append(t.Rows, row)
	}
	if td.err != nil {
		d.err = td.err
	}
	return t
}

// value decodes one column value of type typ as text (nil for NULL).
func (d *decoder) value(typ int8) []byte {
	switch typ {
	case typeTinyint:
		v := d.byte1()
		if v == nullTinyint {
			return nil
		}
		return strconv.AppendInt(nil, int64(v), 10)
	case typeSmallint:
		v := d.int16()
		if v == nullSmallint {
			return nil
		}
		return strconv.AppendInt(nil, int64(v), 10)
	case typeInteger:
		v := d.int32()
		if v == nullInteger {
			return nil
		}
		return strconv.AppendInt(nil, int64(v), 10)
	case typeBigint, typeTimestamp:
		v := d.int64()
		if v == nullBigint {
			return nil
		}
		return strconv.AppendInt(nil, v, 10)
	case typeFloat:
		v := math.Float64frombits(uint64(d.int64()))
		if v <= nullFloat {
			return nil
		}
		return strconv.AppendFloat(nil, v, 'g', -1, 64)
	case typeString, typeVarbinary:
		b, null := d.bytesField()
		if null {
			return nil
		}
		out := make([]byte, len(b)) // the row outlives the message buffer
		copy(out, b)
		return out
	case typeDecimal:
		return decimalText(d.take(16))
	}
	d.fail("column type " + strconv.Itoa(int(typ)) + " not supported")
	return nil
}

// decimalText renders a 16-byte two's-complement DECIMAL of scale 12 as
// text without trailing zeros after the point; nil for NULL (the smallest
// 128-bit value) or a short buffer.
func decimalText(b []byte) []byte {
	if len(b) != 16 {
		return nil
	}
	if b[0] == 0x80 {
		null := true
		for _, x := range b[1:] {
			if x != 0 {
				null = false
				break
			}
		}
		if null {
			return nil
		}
	}
	v := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	for len(digits) <= decimalScale {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-decimalScale], digits[len(digits)-decimalScale:]
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return []byte(s)
}

// decoder reads big-endian values; the first failure sticks in err and
// every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errProtocol, why)
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail("a field runs past the end of the message")
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte1() int8 {
	if b := d.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (d *decoder) int16() int16 {
	if b := d.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (d *decoder) int32() int32 {
	if b := d.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (d *decoder) int64() int64 {
	if b := d.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// bytesField reads a length-prefixed value; length -1 is NULL.
func (d *decoder) bytesField() ([]byte, bool) {
	n := d.int32()
	if d.err != nil {
		return nil, false
	}
	if n == -1 {
		return nil, true
	}
	return d.take(int(n)), false
}

func (d *decoder) string() (string, bool) {
	b, null := d.bytesField()
	return string(b), null
}
