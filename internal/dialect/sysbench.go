package dialect

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// sysbench 1.0.20's SQL (src/lua/oltp_common.lua, select_random_*.lua,
// bulk_insert.lua, oltp_insert.lua; docs/SYSBENCH.md, "Reference facts"), per product.
//
// Statement text is sysbench's, byte for byte, multi-line Lua strings
// (CREATE TABLE, select_random_*) included; bind parameters are written in
// the dialect's placeholder style ($n on the PostgreSQL wire).
//
// Where sysbench's DDL does not exist on a product, the product's nearest
// equivalent is written and documented next to the code: SQLite gets the
// table with INTEGER ids (a rowid alias, so an omitted id is assigned as
// AUTO_INCREMENT would), and --secondary, whose `KEY xid (id)` is MySQL-only,
// becomes CREATE INDEX xid_N ON sbtestN(id) elsewhere.

// Sharding values of SysbenchOptions.Sharding.
const (
	ShardingHash  = "hash"
	ShardingRange = "range"
)

// SysbenchOptions are the workload options that change sysbench's SQL.
type SysbenchOptions struct {
	// Tables is the number of tables, sbtest1..sbtest<Tables> (at least 1).
	Tables int
	// TableSize is the rows per table (--table-size): it places the split
	// points of Presplit on range-sharded tables.
	TableSize int64
	// AutoInc is --auto-inc: ids from the database (AUTO_INCREMENT, SERIAL)
	// rather than from the client.
	AutoInc bool
	// Secondary is --secondary: an index on id in place of the primary key.
	Secondary bool
	// StorageEngine is --mysql-storage-engine ("" is innodb), written as
	// /*! ENGINE = <engine> */ on the MySQL wire.
	StorageEngine string
	// SequenceCache, when positive, sets the id sequence's cache to that
	// many values per session (PostgreSQL, YugabyteDB, CockroachDB) or
	// TiDB's AUTO_ID_CACHE. 0 keeps the product's default. Without AutoInc
	// there is no sequence and it has no effect.
	SequenceCache int64
	// Sharding is "" (the product's default), ShardingHash or ShardingRange.
	Sharding string
	// SplitAt are split points of range-sharded tables (ids, increasing).
	SplitAt []int64
	// Presplit, when at least 2, splits each table into that many tablets,
	// ranges or regions up front.
	Presplit int
	// RandomPoints is the IN list length of select_random_points (≥ 1).
	RandomPoints int
	// NumberOfRanges is the BETWEEN count of select_random_ranges (≥ 1).
	NumberOfRanges int
}

// SysbenchTable is the SQL of one table sbtest<N>.
type SysbenchTable struct {
	Name string // "sbtest1"
	// Create is the table's CREATE TABLE (oltp_common.lua create_table).
	Create string
	// Setup are statements that complete the table after Create and before
	// its first row is written: an id sequence's cache, pre-splits, the id
	// index of --secondary. Each is idempotent (safe to repeat). Often empty.
	Setup []string
	// CreateIndex is sysbench's post-load secondary index,
	// CREATE INDEX k_N ON sbtestN(k) (--create-secondary).
	CreateIndex string
	// BulkCreate and BulkSetup are bulk_insert.lua's table (id and k only)
	// with the same sharding; BulkInsert is the head of its multi-row
	// INSERT, "INSERT INTO sbtestN VALUES", to which rows are appended with
	// AppendBulkRow.
	BulkCreate string
	BulkSetup  []string
	BulkInsert string

	// The prepared statements of oltp_common.lua stmt_defs.
	PointSelect    string // SELECT c FROM sbtestN WHERE id=?
	SimpleRange    string // SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?
	SumRange       string // SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?
	OrderRange     string // SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c
	DistinctRange  string // SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c
	IndexUpdate    string // UPDATE sbtestN SET k=k+1 WHERE id=?
	NonIndexUpdate string // UPDATE sbtestN SET c=? WHERE id=?
	Delete         string // DELETE FROM sbtestN WHERE id=?
	Insert         string // INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)

	loadHead string // INSERT INTO sbtestN(k, c, pad) VALUES
}

// SysbenchStatements is sysbench's SQL for one dialect and set of options.
// It is immutable after Sysbench returns and safe for concurrent use.
type SysbenchStatements struct {
	Tables []SysbenchTable // Tables[i] is sbtest<i+1>

	Begin    string // BEGIN
	Commit   string // COMMIT
	Rollback string // ROLLBACK (after a failed statement inside BEGIN)

	// RandomPoints is select_random_points.lua's query on sbtest1:
	// SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ...) with
	// Options.RandomPoints parameters, laid out on lines as the script's.
	RandomPoints string
	// RandomRanges is select_random_ranges.lua's query on sbtest1:
	// SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR ... with
	// Options.NumberOfRanges ranges, laid out on lines as the script's.
	RandomRanges string

	// LoadColumns are the columns the load writes, in order: k, c, pad with
	// AutoInc (the database assigns ids), else id, k, c, pad.
	LoadColumns []string
	// MaxLoadRows is the most rows one LoadInsert statement may carry under
	// the dialect's bind-parameter limit; 0 means no limit.
	MaxLoadRows int

	d         Dialect
	opts      SysbenchOptions
	autoIncID string // the id literal oltp_insert sends with AutoInc; "" omits the column
}

// Sysbench builds sysbench's statements for d. It fails, before anything is
// created, when an option asks for what the product does not have (sharding
// on PostgreSQL, MySQL, MariaDB or SQLite; a sequence cache on MySQL or
// SQLite), naming the option and the products that offer it, and on
// inconsistent options (split points without range sharding, ...).
func Sysbench(d Dialect, o SysbenchOptions) (SysbenchStatements, error) {
	if err := checkSysbench(d, o); err != nil {
		return SysbenchStatements{}, err
	}
	p := d.Param
	s := SysbenchStatements{
		Begin:    "BEGIN",
		Commit:   "COMMIT",
		Rollback: "ROLLBACK",
		d:        d,
		opts:     o,
	}
	if o.AutoInc {
		s.LoadColumns = []string{"k", "c", "pad"}
	} else {
		s.LoadColumns = []string{"id", "k", "c", "pad"}
	}
	if d.MaxBindParams > 0 {
		s.MaxLoadRows = d.MaxBindParams / len(s.LoadColumns)
	}
	// oltp_insert.lua: with auto_inc the pgsql driver omits the id column;
	// the mysql driver sends id 0, which AUTO_INCREMENT replaces. SQLite
	// needs the column omitted (0 would be stored as 0).
	if isMySQLFamily(d) {
		s.autoIncID = "0"
	}

	for n := 1; n <= o.Tables; n++ {
		name := "sbtest" + strconv.Itoa(n)
		t := SysbenchTable{
			Name:           name,
			CreateIndex:    "CREATE INDEX k_" + strconv.Itoa(n) + " ON " + name + "(k)",
			BulkInsert:     "INSERT INTO " + name + " VALUES",
			PointSelect:    "SELECT c FROM " + name + " WHERE id=" + p(1),
			SimpleRange:    "SELECT c FROM " + name + " WHERE id BETWEEN " + p(1) + " AND " + p(2),
			SumRange:       "SELECT SUM(k) FROM " + name + " WHERE id BETWEEN " + p(1) + " AND " + p(2),
			OrderRange:     "SELECT c FROM " + name + " WHERE id BETWEEN " + p(1) + " AND " + p(2) + " ORDER BY c",
			DistinctRange:  "SELECT DISTINCT c FROM " + name + " WHERE id BETWEEN " + p(1) + " AND " + p(2) + " ORDER BY c",
			IndexUpdate:    "UPDATE " + name + " SET k=k+1 WHERE id=" + p(1),
			NonIndexUpdate: "UPDATE " + name + " SET c=" + p(1) + " WHERE id=" + p(2),
			Delete:         "DELETE FROM " + name + " WHERE id=" + p(1),
			Insert:         "INSERT INTO " + name + " (id, k, c, pad) VALUES (" + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ")",
			loadHead:       "INSERT INTO " + name + "(" + strings.Join(s.LoadColumns, ", ") + ") VALUES",
		}
		t.Create, t.Setup = sysbenchCreate(d, o, n, false)
		t.BulkCreate, t.BulkSetup = sysbenchCreate(d, o, n, true)
		s.Tables = append(s.Tables, t)
	}

	var in strings.Builder
	for i := 1; i <= o.RandomPoints; i++ {
		if i > 1 {
			in.WriteString(", ")
		}
		in.WriteString(p(i))
	}
	// The layout is the Lua long strings' of the two scripts, newlines and
	// indentation included, so that the server sees the same text.
	s.RandomPoints = "        SELECT id, k, c, pad\n          FROM sbtest1\n          WHERE k IN (" + in.String() + ")\n        "
	var rr strings.Builder
	for i := 0; i < o.NumberOfRanges; i++ {
		if i > 0 {
			rr.WriteString(" OR ")
		}
		rr.WriteString("k BETWEEN " + p(2*i+1) + " AND " + p(2*i+2))
	}
	s.RandomRanges = "        SELECT count(k)\n          FROM sbtest1\n          WHERE " + rr.String()
	return s, nil
}

// LoadInsert returns the load's multi-row INSERT of rows rows into table
// (1-based): INSERT INTO sbtestN(k, c, pad) VALUES(?, ?, ?),(?, ?, ?)... —
// sysbench's bulk insert with bind parameters in place of literals. Values
// are bound row by row in LoadColumns order. rows must be ≥ 1 and table in
// [1, Tables]; anything else is a programming error and panics.
func (s *SysbenchStatements) LoadInsert(table, rows int) string {
	if rows < 1 {
		panic("dialect: sysbench LoadInsert needs rows >= 1, got " + itoa(rows))
	}
	t := s.Tables[table-1]
	cols := len(s.LoadColumns)
	var b strings.Builder
	b.Grow(len(t.loadHead) + rows*cols*6)
	b.WriteString(t.loadHead)
	p := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteString(s.d.Param(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// AppendInsert appends oltp_insert.lua's statement, sent as plain text
// without parameters as sysbench's con:query does:
// INSERT INTO sbtestN (k, c, pad) VALUES (k, 'c', 'pad') when the database
// assigns ids and the product takes an omitted id (PostgreSQL wire, SQLite),
// else INSERT INTO sbtestN (id, k, c, pad) VALUES (id, k, 'c', 'pad') with
// id 0 for AUTO_INCREMENT (MySQL wire) or the given id without AutoInc. c
// and pad are sysbench's digit-and-dash strings and are written unescaped:
// callers must not pass quotes.
func (s *SysbenchStatements) AppendInsert(dst []byte, table int, id, k int64, c, pad []byte) []byte {
	t := &s.Tables[table-1]
	dst = append(dst, "INSERT INTO "...)
	dst = append(dst, t.Name...)
	switch {
	case s.opts.AutoInc && s.autoIncID == "":
		dst = append(dst, " (k, c, pad) VALUES ("...)
	case s.opts.AutoInc:
		dst = append(dst, " (id, k, c, pad) VALUES ("...)
		dst = append(dst, s.autoIncID...)
		dst = append(dst, ", "...)
	default:
		dst = append(dst, " (id, k, c, pad) VALUES ("...)
		dst = strconv.AppendInt(dst, id, 10)
		dst = append(dst, ", "...)
	}
	dst = strconv.AppendInt(dst, k, 10)
	dst = append(dst, ", '"...)
	dst = append(dst, c...)
	dst = append(dst, "', '"...)
	dst = append(dst, pad...)
	return append(dst, "')"...)
}

// AppendBulkRow appends bulk_insert.lua's row "(n,n)" to a multi-row INSERT
// begun with BulkInsert, preceded by "," unless it is the first row.
func AppendBulkRow(dst []byte, first bool, n int64) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '(')
	dst = strconv.AppendInt(dst, n, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, ')')
}

// Product families for the sysbench DDL.
func isMySQLFamily(d Dialect) bool { return d.Name == MySQL.Name || d.Name == TiDB.Name }

func isPostgresFamily(d Dialect) bool {
	return d.Name == Postgres.Name || d.Name == YugabyteDB.Name || d.Name == CockroachDB.Name
}

// Which products offer what, for error messages.
const (
	shardingProducts = "yugabytedb, cockroachdb and tidb"
	sequenceProducts = "postgres, yugabytedb, cockroachdb (sequence CACHE) and tidb (AUTO_ID_CACHE)"
)

// checkSysbench rejects options the product cannot honour or that
// contradict each other, all problems at once.
func checkSysbench(d Dialect, o SysbenchOptions) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if d.Placeholder == "" {
		return errors.New("sysbench: the dialect is not set (no placeholder style)")
	}
	if !isMySQLFamily(d) && !isPostgresFamily(d) && d.Name != SQLite.Name {
		return fmt.Errorf("sysbench: no SQL for dialect %q; sysbench runs on postgres, yugabytedb, cockroachdb, mysql, tidb and sqlite", d.Name)
	}
	if o.Tables < 1 {
		fail("tables=%d: must be at least 1", o.Tables)
	}
	if o.RandomPoints < 1 {
		fail("random-points=%d: must be at least 1", o.RandomPoints)
	}
	if o.NumberOfRanges < 1 {
		fail("number-of-ranges=%d: must be at least 1", o.NumberOfRanges)
	}
	if e := o.StorageEngine; e != "" && !isIdentifier(e) {
		fail("mysql-storage-engine=%q: must be a plain engine name (letters, digits, _)", e)
	}
	distributes := d.Name == YugabyteDB.Name || d.Name == CockroachDB.Name || d.Name == TiDB.Name

	if o.SequenceCache < 0 {
		fail("sequence-cache=%d: must be 0 (the product's default) or positive", o.SequenceCache)
	}
	// Without AutoInc there is no sequence and a cache is moot: not an error.
	if o.SequenceCache > 0 && o.AutoInc {
		switch {
		case d.Name == MySQL.Name || d.Name == SQLite.Name:
			fail("sequence-cache=%d: %s has no id sequence cache; it is offered by %s", o.SequenceCache, d.Name, sequenceProducts)
		case d.Name == TiDB.Name && o.Sharding == ShardingHash:
			fail("sequence-cache=%d with sharding=hash: a hash-sharded TiDB table takes its ids from AUTO_ID_CACHE = 1, the one cache that keeps them 1..table-size (any other shares its allocator with the hidden row ids and leaves gaps); use sharding=range or auto-inc=off", o.SequenceCache)
		}
	}
	if o.AutoInc && o.Secondary && d.Name == SQLite.Name {
		fail("auto-inc=on with secondary=on: SQLite assigns ids only to an INTEGER PRIMARY KEY; set auto-inc=off or secondary=off")
	}

	switch o.Sharding {
	case "", ShardingHash, ShardingRange:
	default:
		fail("sharding=%q: valid values are hash and range (or empty for the product's default)", o.Sharding)
	}
	if o.Sharding != "" && !distributes {
		fail("sharding=%s: %s has no table distribution; sharding is offered by %s", o.Sharding, d.Name, shardingProducts)
	}
	if len(o.SplitAt) > 0 {
		switch {
		case !distributes:
			fail("split-at: %s has no table distribution; split points are offered by %s", d.Name, shardingProducts)
		case o.Sharding != ShardingRange:
			fail("split-at needs sharding=range (split points are ids of a range-sharded key)")
		}
		for i, v := range o.SplitAt {
			if i > 0 && v <= o.SplitAt[i-1] {
				fail("split-at: values must increase strictly (%d after %d)", v, o.SplitAt[i-1])
				break
			}
		}
	}
	if o.Presplit < 0 || o.Presplit == 1 {
		fail("presplit=%d: give 0 (no pre-split) or at least 2 parts", o.Presplit)
	}
	if o.Presplit >= 2 {
		switch {
		case !distributes:
			fail("presplit=%d: %s has no table distribution; pre-splitting is offered by %s", o.Presplit, d.Name, shardingProducts)
		case o.Sharding == "":
			fail("presplit=%d needs sharding=hash or sharding=range", o.Presplit)
		case len(o.SplitAt) > 0:
			fail("presplit and split-at both give split points; choose one")
		case o.Sharding == ShardingRange && int64(o.Presplit) > o.TableSize:
			fail("presplit=%d: a range-sharded table of %d rows cannot be split into more parts than rows", o.Presplit, o.TableSize)
		case d.Name == TiDB.Name && o.Sharding == ShardingHash && (o.Presplit&(o.Presplit-1) != 0 || o.Presplit > 1<<15):
			fail("presplit=%d: TiDB pre-splits a hash-sharded table into 2^PRE_SPLIT_REGIONS regions; give a power of two up to 32768", o.Presplit)
		}
	}
	if o.Secondary && (o.Sharding != "" || len(o.SplitAt) > 0 || o.Presplit > 0) {
		fail("secondary=on replaces the primary key that sharding distributes; drop one of them")
	}
	return errors.Join(errs...)
}

func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// sysbenchCreate returns the CREATE TABLE of table n and the statements that
// complete it, for the OLTP table or (bulk) bulk_insert.lua's.
func sysbenchCreate(d Dialect, o SysbenchOptions, n int, bulk bool) (string, []string) {
	name := "sbtest" + strconv.Itoa(n)
	autoInc := o.AutoInc && !bulk // bulk_insert.lua's ids come from the client
	hash, rng := o.Sharding == ShardingHash, o.Sharding == ShardingRange
	var setup []string

	// id column (oltp_common.lua: id_def).
	idDef := "INTEGER NOT NULL"
	if autoInc {
		switch d.Name {
		case MySQL.Name, TiDB.Name:
			// On TiDB also when hash-sharded: sysbench's statements address ids
			// 1..table_size, so the ids stay AUTO_INCREMENT's (AUTO_RANDOM's
			// are around 10^18 and refuse the explicit ids of oltp_write_only's
			// DELETE + INSERT); the rows are scattered by the hidden row id
			// (see the key clause).
			idDef = "INTEGER NOT NULL AUTO_INCREMENT"
		case Postgres.Name, YugabyteDB.Name:
			idDef = "SERIAL"
			if o.SequenceCache > 0 {
				// SERIAL's sequence is sbtestN_id_seq, owned by the column.
				// YugabyteDB caches at least ysql_sequence_cache_minval
				// values (a server flag, default 100) whatever CACHE says.
				setup = append(setup, "ALTER SEQUENCE "+name+"_id_seq CACHE "+strconv.FormatInt(o.SequenceCache, 10))
			}
		case CockroachDB.Name:
			// CockroachDB's SERIAL is unique_rowid() unless the session sets
			// serial_normalization=sql_sequence: ids would be large and not
			// the 1..table_size sysbench's statements address (sysbench
			// itself reads missing rows there). The ids come from a real
			// sequence instead, created here and owned by the column so
			// DROP TABLE drops it, with the given cache if any.
			idDef = "INTEGER NOT NULL"
			seq := name + "_id_seq"
			create := "CREATE SEQUENCE IF NOT EXISTS " + seq
			if o.SequenceCache > 0 {
				create += " CACHE " + strconv.FormatInt(o.SequenceCache, 10)
			}
			setup = append(setup, create,
				"ALTER SEQUENCE "+seq+" OWNED BY "+name+".id",
				"ALTER TABLE "+name+" ALTER COLUMN id SET DEFAULT nextval('"+seq+"')")
		case SQLite.Name:
			// INTEGER with PRIMARY KEY (id) is SQLite's rowid alias: an
			// omitted id gets max(id)+1.
		}
	}
	if bulk {
		idDef = "INTEGER NOT NULL"
	}

	// Key clause (id_index_def).
	var keyDef string
	secondary := o.Secondary && !bulk // bulk_insert.lua always has PRIMARY KEY (id)
	switch {
	case secondary && isMySQLFamily(d):
		keyDef = "KEY xid (id)"
	case secondary:
		// No inline KEY outside MySQL: the same index, created right after.
		setup = append(setup, "CREATE INDEX xid_"+strconv.Itoa(n)+" ON "+name+"(id)")
	case d.Name == YugabyteDB.Name && hash:
		keyDef = "PRIMARY KEY (id HASH)"
	case d.Name == YugabyteDB.Name && rng:
		keyDef = "PRIMARY KEY (id ASC)"
	case d.Name == CockroachDB.Name && hash:
		keyDef = "PRIMARY KEY (id) USING HASH"
		if o.Presplit >= 2 {
			keyDef += " WITH (bucket_count = " + itoa(o.Presplit) + ")"
		}
	case d.Name == TiDB.Name && hash:
		// Keep id the key every statement addresses, and scatter the rows
		// by the hidden row id (SHARD_ROW_ID_BITS below): TiDB's way to
		// spread a table whose key values are given. A clustered key
		// would lay the rows out in id order, one hot region.
		keyDef = "PRIMARY KEY (id) NONCLUSTERED"
	case d.Name == TiDB.Name && rng:
		keyDef = "PRIMARY KEY (id) CLUSTERED"
	default:
		keyDef = "PRIMARY KEY (id)"
	}

	// Table options (engine_def, extra_table_options) and distribution.
	var engineDef string
	var extra []string
	points := splitPoints(o)
	switch d.Name {
	case MySQL.Name:
		if !bulk {
			engineDef = "/*! ENGINE = " + engine(o) + " */"
		}
	case TiDB.Name:
		if !bulk {
			engineDef = "/*! ENGINE = " + engine(o) + " */"
		}
		switch {
		case autoInc && hash:
			// Without AUTO_ID_CACHE = 1 the id and the hidden row id
			// share one allocator, so a multi-row INSERT's ids skip the
			// row ids it took: ids would not be 1..table_size. With it,
			// ids come from one counter, in order, as MySQL's.
			extra = append(extra, "AUTO_ID_CACHE = 1")
		case o.SequenceCache > 0 && autoInc:
			extra = append(extra, "AUTO_ID_CACHE = "+strconv.FormatInt(o.SequenceCache, 10))
		}
		if hash {
			bits := log2(o.Presplit)
			extra = append(extra, "SHARD_ROW_ID_BITS = "+itoa(max(4, bits)))
			if bits > 0 {
				extra = append(extra, "PRE_SPLIT_REGIONS = "+itoa(bits))
			}
		}
		if rng && len(o.SplitAt) > 0 {
			setup = append(setup, "SPLIT TABLE "+name+" BY "+valueList(points))
		}
		if rng && o.Presplit >= 2 {
			setup = append(setup, "SPLIT TABLE "+name+" BETWEEN (1) AND ("+strconv.FormatInt(o.TableSize+1, 10)+") REGIONS "+itoa(o.Presplit))
		}
	case YugabyteDB.Name:
		switch {
		case hash && o.Presplit >= 2:
			extra = append(extra, "SPLIT INTO "+itoa(o.Presplit)+" TABLETS")
		case rng && len(points) > 0:
			extra = append(extra, "SPLIT AT VALUES ("+valueList(points)+")")
		}
	case CockroachDB.Name:
		if rng && len(points) > 0 {
			setup = append(setup, "ALTER TABLE "+name+" SPLIT AT VALUES "+valueList(points))
		}
	}

	// The texts of sysbench's Lua long strings, blanks and line breaks
	// included. oltp_common.lua's ends in ") <engine_def> <extra options>",
	// so on PostgreSQL (neither) in ")  ".
	var b strings.Builder
	if bulk {
		b.WriteString("        CREATE TABLE IF NOT EXISTS " + name + " (\n          id " + idDef +
			",\n          k INTEGER DEFAULT '0' NOT NULL")
		if keyDef != "" {
			b.WriteString(",\n          " + keyDef)
		}
		b.WriteString(")")
		if len(extra) > 0 {
			b.WriteString(" " + strings.Join(extra, " "))
		}
		return b.String(), setup
	}
	b.WriteString("CREATE TABLE " + name + "(\n  id " + idDef + ",\n  k INTEGER DEFAULT '0' NOT NULL,\n" +
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL")
	if keyDef != "" {
		b.WriteString(",\n  " + keyDef)
	}
	b.WriteString("\n) " + engineDef + " " + strings.Join(extra, " "))
	return b.String(), setup
}

func engine(o SysbenchOptions) string {
	if o.StorageEngine == "" {
		return "innodb"
	}
	return o.StorageEngine
}

// splitPoints returns the range split points: SplitAt as given, or for
// Presplit = n the n-1 ids that cut 1..TableSize into n equal parts
// (i·TableSize/n + 1). Hash sharding has none.
func splitPoints(o SysbenchOptions) []int64 {
	if o.Sharding != ShardingRange {
		return nil
	}
	if len(o.SplitAt) > 0 {
		return o.SplitAt
	}
	var pts []int64
	for i := 1; i < o.Presplit; i++ {
		pts = append(pts, int64(i)*o.TableSize/int64(o.Presplit)+1)
	}
	return pts
}

// valueList writes (v1), (v2), ...
func valueList(vs []int64) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + strconv.FormatInt(v, 10) + ")")
	}
	return b.String()
}

// log2 is the number of bits of a power of two n (0 for n < 2).
func log2(n int) int {
	if n < 2 {
		return 0
	}
	return bits.Len(uint(n)) - 1
}

// AppendInterpolated appends sql with its bind parameters replaced by the
// literal values in args, as sysbench sends statements with
// --db-ps-mode=disable (its client-side emulation of prepared statements):
// integers in decimal, strings in single quotes. Placeholders are this
// dialect's ($N or ?), outside quoted text. A string holding a quote, a
// backslash or NUL is refused rather than escaped per product (sysbench's
// values are digits and dashes), as is any other type or a missing argument.
func (s *SysbenchStatements) AppendInterpolated(dst []byte, sql string, args []any) ([]byte, error) {
	return appendInterpolated(s.d, dst, sql, args, false)
}

// AppendInterpolated is SysbenchStatements.AppendInterpolated for any
// statement in this dialect, where a value may also be a float64 or nil
// (NULL): a sysbench Lua script's with --db-ps-mode=disable.
func (d Dialect) AppendInterpolated(dst []byte, sql string, args []any) ([]byte, error) {
	return appendInterpolated(d, dst, sql, args, true)
}

// appendInterpolated writes args into sql; floats and NULLs when more.
func appendInterpolated(d Dialect, dst []byte, sql string, args []any, more bool) ([]byte, error) {
	s := struct{ d Dialect }{d}
	next := 0 // the next ? argument
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(sql[i+1:], '\'')
			if j < 0 {
				return dst, fmt.Errorf("unterminated quote in %q", sql)
			}
			dst = append(dst, sql[i:i+j+2]...)
			i += j + 1
			continue
		case ch == '?' && s.d.Placeholder == Question:
			n := next
			next++
			var err error
			if dst, err = appendLiteral(dst, args, n, more); err != nil {
				return dst, err
			}
			continue
		case ch == '$' && s.d.Placeholder == Dollar && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := i + 1
			n := 0
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				n = n*10 + int(sql[j]-'0')
				j++
			}
			var err error
			if dst, err = appendLiteral(dst, args, n-1, more); err != nil {
				return dst, err
			}
			i = j - 1
			continue
		}
		dst = append(dst, ch)
	}
	return dst, nil
}

func appendLiteral(dst []byte, args []any, n int, more bool) ([]byte, error) {
	if n < 0 || n >= len(args) {
		return dst, fmt.Errorf("parameter %d of %d", n+1, len(args))
	}
	switch v := args[n].(type) {
	case nil:
		if more {
			return append(dst, "NULL"...), nil
		}
	case float64:
		if more {
			return strconv.AppendFloat(dst, v, 'g', -1, 64), nil
		}
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case string:
		if strings.ContainsAny(v, "'\\\x00") {
			return dst, fmt.Errorf("parameter %d holds a quote, backslash or NUL", n+1)
		}
		dst = append(dst, '\'')
		dst = append(dst, v...)
		return append(dst, '\''), nil
	}
	return dst, fmt.Errorf("parameter %d is a %T", n+1, args[n])
}

// PrewarmSession are the statements oltp_common.lua's prewarm command runs
// first on each connection (no temporary table on disk for what follows).
var PrewarmSession = []string{"SET tmp_table_size=2*1024*1024*1024", "SET max_heap_table_size=2*1024*1024*1024"}

// Prewarm returns the statements oltp_common.lua's prewarm command runs for
// sbtest<table>: ANALYZE TABLE, then a scan of the primary key and one of
// the rows, limited to the table size. sysbench offers the command on its
// MySQL driver only, and so does candor (MySQL wire).
func (s *SysbenchStatements) Prewarm(table int) ([]string, error) {
	if !isMySQLFamily(s.d) {
		return nil, fmt.Errorf("prewarm loads InnoDB's buffer pool and is MySQL-wire only, as in sysbench (the target is %s)", s.d.Name)
	}
	t := s.Tables[table-1].Name
	n := strconv.FormatInt(s.opts.TableSize, 10)
	return []string{
		"ANALYZE TABLE " + t,
		"SELECT AVG(id) FROM (SELECT * FROM " + t + " FORCE KEY (PRIMARY) LIMIT " + n + ") t",
		"SELECT COUNT(*) FROM (SELECT * FROM " + t + " WHERE k LIKE '%0%' LIMIT " + n + ") t",
	}, nil
}
