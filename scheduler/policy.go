package scheduler

import (
	"fmt"
	"sort"
	"strings"
)

// A Policy chooses which queued jobs start now. It reads v, starts jobs
// with v.Start, may record reservations with v.Reserve, keeps nothing from
// v after returning, and never advances time.
type Policy interface {
	Name() string
	Schedule(v *View)
}

// Policies is the table of contents of scheduling policies: a new policy
// is one file plus one line here.
var Policies = PolicyRegistry{
	"fcfs":           func() Policy { return &FCFS{} },
	"easy":           func() Policy { return &EASY{} },
	"conservative":   func() Policy { return &Conservative{} },
	"slurm-backfill": func() Policy { return &SlurmBackfill{} }, // Config.SlurmSched (slurmbf.go)
}

// PolicyRegistry maps names to constructors.
type PolicyRegistry map[string]func() Policy

// New builds the named policy.
func (r PolicyRegistry) New(name string) (Policy, error) {
	mk, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("scheduler: unknown policy %q (known: %s)", name, strings.Join(names(r), ", "))
	}
	return mk(), nil
}

// PolicyFunc adapts a function to a Policy, for tests.
type PolicyFunc func(v *View)

func (PolicyFunc) Name() string       { return "func" }
func (f PolicyFunc) Schedule(v *View) { f(v) }

// An Order sorts the wait queue. Less must be a strict weak order that
// breaks every tie (Seq, the trace order, is unique).
type Order interface {
	Name() string
	Less(a, b *QueuedJob) bool
}

// Orders is the table of contents of queue orders.
var Orders = OrderRegistry{
	"submit":      func() Order { return submitOrder{} },
	"sef":         func() Order { return sefOrder{} },
	"multifactor": func() Order { return multifactorOrder{} }, // needs Config.Priority (priority.go)
}

// OrderRegistry maps names to constructors.
type OrderRegistry map[string]func() Order

// New builds the named order.
func (r OrderRegistry) New(name string) (Order, error) {
	mk, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("scheduler: unknown queue order %q (known: %s)", name, strings.Join(names(r), ", "))
	}
	return mk(), nil
}

// submitOrder is first come, first served: submit time, ties in trace order.
type submitOrder struct{}

func (submitOrder) Name() string { return "submit" }
func (submitOrder) Less(a, b *QueuedJob) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.Seq < b.Seq
}

// sefOrder is shortest estimate first, ties by submit order.
type sefOrder struct{}

func (sefOrder) Name() string { return "sef" }
func (sefOrder) Less(a, b *QueuedJob) bool {
	if a.Est != b.Est {
		return a.Est < b.Est
	}
	return submitOrder{}.Less(a, b)
}

func names[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
