package sysbenchlua

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// strFormat is string.format as Lua 5.1 (and LuaJIT) define it, C's
// printf conversions with Lua's argument rules: gopher-lua's own hands the
// format to Go's fmt, which has no %u (sysbench's oltp_common.lua names its
// tables with "sbtest%u") and formats a number given to %d as a float when
// it has a fraction. Integer conversions (%d %i %u %c %o %x %X) truncate
// the number toward zero, %s takes any value through tostring, %q quotes a
// string as Lua reads it back.
func strFormat(L *lua.LState) int {
	f := L.CheckString(1)
	var b strings.Builder
	arg := 1
	for i := 0; i < len(f); i++ {
		ch := f[i]
		if ch != '%' {
			b.WriteByte(ch)
			continue
		}
		i++
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		if i < len(f) && f[i] == '.' {
			i++
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
		}
		if i >= len(f) {
			L.RaiseError("invalid option '%%%s' to 'format'", f[start:])
		}
		spec := f[start:i]
		conv := f[i]
		arg++
		switch conv {
		case 'd', 'i', 'u':
			fmt.Fprintf(&b, "%"+spec+"d", int64(L.CheckNumber(arg)))
		case 'c':
			b.WriteByte(byte(int64(L.CheckNumber(arg))))
		case 'o', 'x', 'X':
			fmt.Fprintf(&b, "%"+spec+string(conv), int64(L.CheckNumber(arg)))
		case 'e', 'E', 'f', 'g', 'G':
			fmt.Fprintf(&b, "%"+spec+string(conv), float64(L.CheckNumber(arg)))
		case 's':
			v := L.CheckAny(arg)
			s := luaToString(L, v)
			fmt.Fprintf(&b, "%"+spec+"s", s)
		case 'q':
			b.WriteString(quoteLua(L.CheckString(arg)))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// luaToString is tostring(v): its __tostring when it has one.
func luaToString(L *lua.LState, v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	if n, ok := v.(lua.LNumber); ok {
		return numberString(float64(n))
	}
	tostring := L.GetGlobal("tostring")
	L.Push(tostring)
	L.Push(v)
	L.Call(1, 1)
	s := L.Get(-1)
	L.Pop(1)
	return lua.LVAsString(s)
}

// numberString writes a number as Lua 5.1's "%.14g".
func numberString(f float64) string {
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// quoteLua is %q: the string in double quotes, with what Lua reads back.
func quoteLua(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString("\\\n")
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
