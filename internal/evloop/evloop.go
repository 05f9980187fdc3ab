//go:build linux && (amd64 || arm64)

// Package evloop runs many benchmark sessions on one thread, as pgbench's
// threads do: each session's code runs as a coroutine (iter.Pull) of a loop
// that waits for all of their sockets in one epoll_pwait2, and resumes each
// coroutine whose socket became ready, or whose sleep ended, on the loop's
// own thread.
//
// With a thread per session (package blockconn) every reply wakes its own
// thread: one context switch per statement. A loop whose wait returns
// several sessions' replies at once serves them all in one wakeup, and on
// cores shared with the server those switches are most of a client's cost
// (docs/SCRIPTS.md, "Performance beside pgbench 15"). Go's network poller
// does the same in principle, but its scheduler wakes other threads to
// steal the goroutines it made runnable; a coroutine switch involves no
// scheduler.
//
// A coroutine waits only through its Task: Wait for a descriptor (the
// blockconn connections dialed under a Task's context) and Sleep. Code
// that blocks otherwise (a channel, a mutex held elsewhere, Go's network
// poller for a new connection) still works, but holds up every session of
// the loop until it returns; and it must not wait for another task of the
// same loop (a mutex that task holds across a statement), which cannot run
// meanwhile. candor's workloads hold no lock across a statement of a run
// phase.
package evloop

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available reports whether event loops run here (Linux).
const Available = true

// Loop is one thread's set of tasks. Add tasks, then Run it once.
type Loop struct {
	epfd, efd int
	tasks     []*Task
	runq      []*Task
	sleepers  sleepHeap
	fdsMu     sync.Mutex  // Forget may run on another goroutine
	fds       []*FD       // by descriptor number
	woken     atomic.Bool // Wake was called since the loop last looked
	wakeMu    sync.Mutex  // a Wake's write and Close: efd is never written once closed
	closed    bool
	events    []unix.EpollEvent
	pwait2    bool
	later     []Flusher // to call once the runnable tasks have had their turns
}

// Flusher is work a task leaves its loop (Task.Later): sends that wait
// until the loop's other runnable tasks have had their turns.
type Flusher interface{ Flush() }

// New returns a loop with its epoll instance and its wake-up eventfd.
func New() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("evloop: %w", err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("evloop: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(efd)
		unix.Close(epfd)
		return nil, fmt.Errorf("evloop: %w", err)
	}
	return &Loop{epfd: epfd, efd: efd, events: make([]unix.EpollEvent, 128), pwait2: true}, nil
}

// Close releases the loop's descriptors (after Run returned); a Wake
// after it does nothing.
func (l *Loop) Close() error {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	l.closed = true
	return errors.Join(unix.Close(l.efd), unix.Close(l.epfd))
}

// Task is one coroutine of a loop.
type Task struct {
	loop     *Loop
	fn       func()
	next     func() (struct{}, bool)
	stop     func()
	yield    func(struct{}) bool
	g        atomic.Uintptr // its coroutine's goroutine (getg) while it lives; 0 before and after
	deadline time.Time      // while sleeping: in the loop's sleepers until then
	waiting  *FD            // while waiting for a descriptor
}

type taskKey struct{}

// Go adds a task that runs fn as a coroutine of the loop. Call it before
// Run. The code of the task finds it in its context (WithTask).
func (l *Loop) Go(fn func()) *Task {
	t := &Task{loop: l, fn: fn}
	l.tasks = append(l.tasks, t)
	return t
}

// WithTask returns ctx carrying t: the sessions dialed under it wait in
// t's loop, and Sleep under it, while t runs, sleeps in the loop.
func WithTask(ctx context.Context, t *Task) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

// FromContext returns the task ctx carries, or nil.
func FromContext(ctx context.Context) *Task {
	t, _ := ctx.Value(taskKey{}).(*Task)
	return t
}

// Current returns the task of ctx when the calling code runs as that
// task's coroutine (and so may wait through it), else nil.
func Current(ctx context.Context) *Task {
	if t := FromContext(ctx); t != nil && t.Mine() {
		return t
	}
	return nil
}

// Mine reports whether the calling goroutine is the task's coroutine: only
// it may wait through the task. Any other goroutine (before the loop runs,
// or one reading the task's socket beside it) must wait otherwise.
func (t *Task) Mine() bool {
	g := t.g.Load()
	return g != 0 && g == getg()
}

// Live reports whether the task's coroutine has started and not yet
// returned: while it lives, a goroutine other than it that reads the
// task's sockets reads beside it.
func (t *Task) Live() bool { return t.g.Load() != 0 }

// Wake makes the loop resume its sleeping tasks (they see their context
// ended); any goroutine may call it.
func (l *Loop) Wake() {
	if l.woken.Swap(true) {
		return
	}
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if !l.closed {
		one := [8]byte{1}
		unix.Write(l.efd, one[:])
	}
}

// Run runs the tasks until every one has returned. A panic in a task is
// raised again here, on Run's goroutine.
func (l *Loop) Run() {
	live := len(l.tasks)
	for _, t := range l.tasks {
		t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
			t.yield = yield
			t.g.Store(getg())
			defer t.g.Store(0) // a goroutine started later may reuse the record
			t.fn()
		})
		l.runq = append(l.runq, t)
	}
	defer func() {
		for _, t := range l.tasks {
			t.stop()
		}
	}()
	for {
		for i := 0; i < len(l.runq); i++ { // running a task adds none
			t := l.runq[i]
			if _, ok := t.next(); !ok {
				live--
			}
		}
		l.runq = l.runq[:0]
		sent := len(l.later) > 0
		for i, f := range l.later {
			f.Flush() // may make a task runnable (Ready)
			l.later[i] = nil
		}
		l.later = l.later[:0]
		if sent {
			// The server's processes those sends woke on this core run
			// before the loop looks for their replies: fewer of the
			// wake-ups go to the other core (0.12 → 0.11
			// inter-processor interrupts a transaction, 1 % less client
			// CPU on select-only at 16 clients; docs/SCRIPTS.md).
			unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		}
		if live == 0 {
			return
		}
		l.poll()
	}
}

// poll waits for descriptors until the earliest sleeper's deadline, and
// makes runnable the tasks whose wait ended.
func (l *Loop) poll() {
	timeout := time.Duration(-1)
	if len(l.runq) > 0 {
		timeout = 0 // a Flusher made a task runnable: only collect the events
	} else if len(l.sleepers) > 0 {
		timeout = max(time.Until(l.sleepers[0].deadline), 0)
	}
	n, err := l.wait(timeout)
	if err != nil && err != unix.EINTR {
		panic(fmt.Sprintf("evloop: epoll_pwait2: %v", err))
	}
	for _, ev := range l.events[:max(n, 0)] {
		if int(ev.Fd) == l.efd {
			var b [8]byte
			unix.Read(l.efd, b[:])
			l.woken.Store(false)
			// Every sleeper looks at its context again.
			for len(l.sleepers) > 0 {
				l.runq = append(l.runq, heap.Pop(&l.sleepers).(*Task))
			}
			continue
		}
		l.fdsMu.Lock()
		var f *FD
		if int(ev.Fd) < len(l.fds) {
			f = l.fds[ev.Fd]
		}
		l.fdsMu.Unlock()
		if f == nil {
			continue
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			f.readable = true
		}
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			f.writable = true
		}
		if w := f.waiter; w != nil && (f.waitWrite && f.writable || !f.waitWrite && f.readable) {
			f.waiter, w.waiting = nil, nil
			l.runq = append(l.runq, w)
		}
	}
	if len(l.sleepers) > 0 {
		now := time.Now()
		for len(l.sleepers) > 0 && !l.sleepers[0].deadline.After(now) {
			l.runq = append(l.runq, heap.Pop(&l.sleepers).(*Task))
		}
	}
}

// wait is epoll_pwait2 with a timeout in nanoseconds (negative: none); on
// a kernel without it (before 5.11), epoll_wait with the timeout rounded
// up to a millisecond.
//
// epoll_pwait2 is a raw system call: the runtime is not told that the
// thread blocks, so the loop keeps its P (scheduler slot) while it waits,
// as a thread of pgbench keeps its core. Told, the runtime releases the P
// at every wait and takes one again after it, and wakes its monitor thread
// from its deep sleep each time the process goes from idle to busy (2,400
// times a second on select-only with 16 clients): that cost about a tenth
// of candor's client CPU per transaction at 16 clients on one loop
// (bench/pgbench-compare.sh at -j 1: tpcb-like 76 → 67 µs, select-only
// 9.4 → 8.6 µs). The runtime still stops the loop when it must (a
// collection's stop-the-world, the monitor's preemption after 10 ms): its
// signal ends the wait with EINTR, and the loop's next function call
// yields. The runner reserves a P for each loop and one more for
// everything else (Reserve), so that no goroutine waits for a loop's P.
func (l *Loop) wait(timeout time.Duration) (int, error) {
	if l.pwait2 {
		var ts *unix.Timespec
		if timeout >= 0 {
			t := unix.NsecToTimespec(int64(timeout))
			ts = &t
		}
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(unsafe.Pointer(ts)), 0, 0)
		if e != unix.ENOSYS {
			if e != 0 {
				return 0, e
			}
			return int(r), nil
		}
		l.pwait2 = false
	}
	ms := -1
	if timeout >= 0 {
		ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	return unix.EpollWait(l.epfd, l.events, ms)
}

// Sleep waits d, or until ctx ends, and reports whether d elapsed. The
// caller must be the task's coroutine (Current, Mine).
func (t *Task) Sleep(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if ctx.Err() != nil {
			return false
		}
		if !time.Now().Before(deadline) {
			return true
		}
		t.deadline = deadline
		heap.Push(&t.loop.sleepers, t)
		t.yield(struct{}{})
	}
}

// FD is a non-blocking descriptor that tasks of one loop wait for, in the
// loop's epoll set (edge-triggered) from its first wait until Forget.
type FD struct {
	fd       int
	loop     *Loop
	readable bool // since the last EAGAIN or short read (MarkDrained)
	writable bool
	// waiter waits for it to become readable, or writable with waitWrite.
	waiter    *Task
	waitWrite bool
}

// NewFD returns the readiness state of fd, which must be non-blocking; it
// is taken as ready until a read or write says otherwise.
func NewFD(fd int) *FD { return &FD{fd: fd, readable: true, writable: true} }

// Readable reports whether a read may find data (no EAGAIN or short read
// since the last event).
func (f *FD) Readable() bool { return f.readable }

// MarkDrained records that a read found the socket empty (EAGAIN, or read
// less than it asked for): the next read waits for an event.
func (f *FD) MarkDrained() { f.readable = false }

// MarkFull records that a write returned EAGAIN.
func (f *FD) MarkFull() { f.writable = false }

// Wait suspends the task t, called by its coroutine (Mine), until f is readable (or writable, with
// write), adding f to t's loop on its first wait.
func (t *Task) Wait(f *FD, write bool) error {
	l := t.loop
	if f.loop == nil {
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(f.fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, f.fd, &ev); err != nil {
			return fmt.Errorf("evloop: adding a socket: %w", err)
		}
		f.loop = l
		l.fdsMu.Lock()
		if f.fd >= len(l.fds) {
			l.fds = append(l.fds, make([]*FD, f.fd+1-len(l.fds))...)
		}
		l.fds[f.fd] = f
		l.fdsMu.Unlock()
	} else if f.loop != l {
		return errors.New("evloop: a socket waited for by a task of another loop")
	}
	if write && f.writable || !write && f.readable {
		return nil
	}
	f.waiter, f.waitWrite, t.waiting = t, write, f
	t.yield(struct{}{})
	return nil
}

// Later has t's loop call f.Flush once each of its runnable tasks has had
// its turn, before the loop waits for events again; the caller must be t's
// coroutine. A PostgreSQL session of a loop sends its statement this way
// (blockconn.Conn.SendLater): the loop reads every reply that is in, then
// sends the statements that follow them in a row. Those sends wake the
// server's processes on the other core less often, each an
// inter-processor interrupt that in a virtual machine costs the sender
// about 6 µs here: on select-only at 16 clients on one loop, 0.14 → 0.12
// of them and 0.29 → 0.22 context switches a transaction, and 3 % less
// client CPU (docs/SCRIPTS.md, "Performance beside pgbench 15").
func (t *Task) Later(f Flusher) { t.loop.later = append(t.loop.later, f) }

// Ready makes t runnable again if it waits for a descriptor: its Wait
// returns as if the descriptor were ready. Only a Flusher, on the loop's
// goroutine, calls it (a send it could not finish, which the task must
// finish itself).
func (t *Task) Ready() {
	if f := t.waiting; f != nil {
		f.waiter, t.waiting = nil, nil
		t.loop.runq = append(t.loop.runq, t)
	}
}

// Forget removes f from its loop's epoll set; call it before closing the
// descriptor, and not while a task waits for it.
func (f *FD) Forget() {
	if l := f.loop; l != nil {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, f.fd, nil)
		l.fdsMu.Lock()
		l.fds[f.fd] = nil
		l.fdsMu.Unlock()
		f.loop = nil
	}
}

// sleepHeap orders sleeping tasks by deadline.
type sleepHeap []*Task

func (h sleepHeap) Len() int           { return len(h) }
func (h sleepHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h sleepHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sleepHeap) Push(x any)        { *h = append(*h, x.(*Task)) }
func (h *sleepHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
