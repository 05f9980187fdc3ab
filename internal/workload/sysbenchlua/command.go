package sysbenchlua

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/candor-bench/candor/internal/target"
)

// Command is the script's command: run unless given (-p command=NAME).
func (w *Workload) Command() string { return w.g.command }

// HasCommand says whether the script can run command: one of its
// sysbench.cmdline.commands, or prepare, cleanup or help as a global
// function (help also from its options).
func (w *Workload) HasCommand(command string) bool {
	switch {
	case w.commands[command]:
		return true
	case command == "help":
		return w.globals["help"] || w.declared
	case command == "prepare" || command == "cleanup":
		return w.globals[command]
	}
	return false
}

// RunCommand runs a command other than run as sysbench does: a custom
// command (sysbench.cmdline.commands[NAME] = {fn, PARALLEL_COMMAND}) wins,
// in threads Lua states at once (tid 0..threads-1) when parallel, else in
// one; then prepare() or cleanup() in one state. Each state's
// drv:connect() opens a session of tgt; print() writes to out. Bind must
// have been called. An error names the function that failed.
func (w *Workload) RunCommand(ctx context.Context, tgt target.Target, threads int, out io.Writer) error {
	cmd := w.g.command
	if !w.HasCommand(cmd) {
		if cmd == "prepare" || cmd == "cleanup" {
			return fmt.Errorf("'%s' test does not implement the '%s' command", w.file, cmd)
		}
		return fmt.Errorf("unknown command '%s' for %s: it defines %s", cmd, w.file, w.commandList())
	}
	threads = max(threads, 1)
	parallel := false
	if w.commands[cmd] {
		st, err := w.commandState(ctx, tgt, 0, out)
		if err != nil {
			return err
		}
		def, _ := st.L.GetField(st.L.GetField(st.L.GetField(st.sbtable, "cmdline"), "commands"), cmd).(*lua.LTable)
		if def != nil {
			parallel = lua.LVAsBool(def.RawGetInt(2))
		}
		st.close()
	}
	if !parallel {
		threads = 1
	}
	var wg sync.WaitGroup
	errs := make([]error, threads)
	var mu sync.Mutex
	sw := &syncWriter{w: out, mu: &mu}
	for tid := 0; tid < threads; tid++ {
		wg.Add(1)
		go func(tid int) {
			defer wg.Done()
			errs[tid] = w.runCommandIn(ctx, tgt, tid, sw, cmd)
		}(tid)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *Workload) runCommandIn(ctx context.Context, tgt target.Target, tid int, out io.Writer, cmd string) error {
	st, err := w.commandState(ctx, tgt, tid, out)
	if err != nil {
		return err
	}
	defer st.close()
	L := st.L
	if w.commands[cmd] {
		def, _ := L.GetField(L.GetField(L.GetField(st.sbtable, "cmdline"), "commands"), cmd).(*lua.LTable)
		var fn lua.LValue = lua.LNil
		if def != nil {
			fn = def.RawGetInt(1)
		}
		if _, ok := fn.(*lua.LFunction); !ok {
			return fmt.Errorf("sysbench.cmdline.commands.%s of %s holds no function", cmd, w.file)
		}
		return st.call(cmd, fn, lua.LNumber(tid))
	}
	return st.callGlobal(cmd)
}

// commandState is a main state for a command: its own sessions.
func (w *Workload) commandState(ctx context.Context, tgt target.Target, tid int, out io.Writer) (*luaState, error) {
	seed := time.Now().UnixNano() + int64(tid)
	if w.g.randSeed != 0 {
		seed = w.g.randSeed*0x2545F4914F6CDD1D + int64(tid) + 1
	}
	st, err := w.newState(stateMain, tid, rand.New(rand.NewSource(seed)))
	if err != nil {
		return nil, err
	}
	st.out, st.ctx = out, ctx
	st.connect = func() (target.Conn, error) {
		c, err := tgt.Connect(ctx)
		if err == nil {
			st.opened = append(st.opened, c)
		}
		return c, err
	}
	return st, nil
}

// close closes the state and the sessions its commands opened.
func (st *luaState) close() {
	for _, c := range st.opened {
		c.Close()
	}
	st.L.Close()
}

func (w *Workload) commandList() string {
	out := ""
	for _, c := range []string{"prepare", "cleanup", "help"} {
		if w.HasCommand(c) {
			out += c + ", "
		}
	}
	for c := range w.commands {
		if c != "prepare" && c != "cleanup" && c != "help" {
			out += c + ", "
		}
	}
	return out + "run"
}

// syncWriter serialises the parallel commands' prints, line by line.
type syncWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
