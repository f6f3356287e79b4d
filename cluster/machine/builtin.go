package machine

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed builtin/*.toml
var builtinFS embed.FS

// BuiltinNames lists the embedded machines ("builtin:NAME").
var BuiltinNames = []string{"default", "perlmutter"}

// Builtin returns an embedded machine: "default" is the processor-only
// machine of the embedded Lublin workload (256 one-core nodes, one
// partition), "perlmutter" a CPU+GPU machine whose figures cite their
// sources in the file.
func Builtin(name string) (*Machine, error) {
	data, err := builtinFS.ReadFile("builtin/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("machine: unknown builtin machine %q (known: %s)", name, strings.Join(BuiltinNames, ", "))
	}
	return Parse("builtin:"+name, data)
}

// BuiltinText returns the TOML of an embedded machine.
func BuiltinText(name string) ([]byte, error) {
	return builtinFS.ReadFile("builtin/" + name + ".toml")
}
