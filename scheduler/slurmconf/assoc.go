package slurmconf

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Assocs are fair-share associations: accounts under root and users under
// accounts, each with its raw shares (Slurm's Fairshare=; default 1), and
// the QOS priorities. Sub-accounts are not modelled: every account hangs
// off root.
type Assocs struct {
	Accounts []Account
	Users    []User
	// RootUsers are the shares of user associations directly under root
	// (such as root's own): they count among root's children's shares.
	RootUsers float64
	QOS       map[string]float64 // QOS name -> priority
}

// Account is one account association.
type Account struct {
	Name   string
	Shares float64
}

// User is one user association.
type User struct {
	Account, Name string
	Shares        float64
}

// LoadAssoc reads an associations file: `sacctmgr show assoc -P` output
// (detected by its header) or TOML:
//
//	[accounts]
//	astro = 2
//	[users]
//	"astro/u1" = 3
//	[qos]
//	high = 100
func LoadAssoc(path string) (*Assocs, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseAssoc(bytes.NewReader(b), path)
}

// ParseAssoc reads associations from r; file names it in errors.
func ParseAssoc(r io.Reader, file string) (*Assocs, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if bytes.Contains(first, []byte("|")) {
		return parseSacctmgr(b, file)
	}
	return parseTOML(b, file)
}

func parseSacctmgr(b []byte, file string) (*Assocs, error) {
	a := &Assocs{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	col := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(strings.TrimRight(sc.Text(), "\r"), "|")
		if line == 1 {
			for i, h := range f {
				col[strings.ToLower(strings.TrimSpace(h))] = i
			}
			for _, need := range []string{"account", "user", "share"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("%s:1: header has no %q column (want `sacctmgr show assoc -P` output)", file, need)
				}
			}
			continue
		}
		if len(f) == 1 && f[0] == "" {
			continue
		}
		get := func(k string) string {
			if i := col[k]; i < len(f) {
				return strings.TrimSpace(f[i])
			}
			return ""
		}
		if i, ok := col["partition"]; ok && i < len(f) && f[i] != "" {
			continue // per-partition associations are not modelled
		}
		acct, user, sh := strings.ToLower(get("account")), get("user"), get("share")
		shares := 1.0
		if sh != "" && !strings.EqualFold(sh, "parent") {
			n, err := strconv.ParseUint(sh, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: Share %q: want a non-negative integer or parent", file, line, sh)
			}
			shares = float64(n)
		}
		switch {
		case acct == "":
			return nil, fmt.Errorf("%s:%d: Account: empty", file, line)
		case acct == "root" && user == "":
		case acct == "root":
			a.RootUsers += shares
		case user == "":
			a.Accounts = append(a.Accounts, Account{Name: acct, Shares: shares})
		default:
			a.Users = append(a.Users, User{Account: acct, Name: user, Shares: shares})
		}
	}
	return a, sc.Err()
}

func parseTOML(b []byte, file string) (*Assocs, error) {
	var raw struct {
		Accounts map[string]int64 `toml:"accounts"`
		Users    map[string]int64 `toml:"users"`
		QOS      map[string]int64 `toml:"qos"`
	}
	md, err := toml.Decode(string(b), &raw)
	if err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return nil, fmt.Errorf("%s:%d: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s (want [accounts], [users], [qos])", file, und[0])
	}
	a := &Assocs{QOS: map[string]float64{}}
	for _, k := range sortedKeys(raw.Accounts) {
		if raw.Accounts[k] < 0 {
			return nil, fmt.Errorf("%s: accounts.%s = %d: want ≥ 0 shares", file, k, raw.Accounts[k])
		}
		a.Accounts = append(a.Accounts, Account{Name: strings.ToLower(k), Shares: float64(raw.Accounts[k])})
	}
	for _, k := range sortedKeys(raw.Users) {
		acct, user, ok := strings.Cut(k, "/")
		if !ok || acct == "" || user == "" {
			return nil, fmt.Errorf("%s: users.%q: want \"account/user\"", file, k)
		}
		if raw.Users[k] < 0 {
			return nil, fmt.Errorf("%s: users.%q = %d: want ≥ 0 shares", file, k, raw.Users[k])
		}
		a.Users = append(a.Users, User{Account: strings.ToLower(acct), Name: user, Shares: float64(raw.Users[k])})
	}
	for k, v := range raw.QOS {
		a.QOS[k] = float64(v)
	}
	return a, nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
