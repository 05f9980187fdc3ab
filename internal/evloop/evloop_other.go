//go:build !linux || !(amd64 || arm64)

// Package evloop runs many sessions on one thread with epoll, on Linux on
// amd64 and arm64 only (evloop.go); elsewhere New refuses and no context
// carries a task.
package evloop

import (
	"context"
	"errors"
	"time"
)

// Available reports whether event loops run here: not without Linux on
// amd64 or arm64.
const Available = false

// Loop is not available here.
type Loop struct{}

// New refuses: event loops need Linux's epoll.
func New() (*Loop, error) { return nil, errors.New("evloop: event loops need Linux on amd64 or arm64") }

// Go, Run, Wake and Close are never reached (New refuses).
func (l *Loop) Go(fn func()) *Task { return nil }
func (l *Loop) Run()               {}
func (l *Loop) Wake()              {}
func (l *Loop) Close() error       { return nil }

// Task is not available here.
type Task struct{}

// WithTask returns ctx: no code runs as a task here.
func WithTask(ctx context.Context, t *Task) context.Context { return ctx }

// FromContext is nil here.
func FromContext(ctx context.Context) *Task { return nil }

// Current is nil here: no code runs as a task.
func Current(ctx context.Context) *Task { return nil }

// Mine, Sleep and Wait are never reached (no task exists).
func (t *Task) Mine() bool                                      { return false }
func (t *Task) Sleep(ctx context.Context, d time.Duration) bool { return false }
func (t *Task) Wait(f *FD, write bool) error                    { return errors.New("evloop: not available") }

// Flusher is work a task leaves its loop; never called here.
type Flusher interface{ Flush() }

// Later and Ready are never reached (no task exists).
func (t *Task) Later(f Flusher) {}
func (t *Task) Ready()          {}

// FD is not available here.
type FD struct{}

// NewFD and the FD methods are never reached (no task exists).
func NewFD(fd int) *FD       { return &FD{} }
func (f *FD) Readable() bool { return true }
func (f *FD) MarkDrained()   {}
func (f *FD) MarkFull()      {}
func (f *FD) Forget()        {}
