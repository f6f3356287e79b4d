// Package slurmlex splits Slurm configuration files (slurm.conf,
// gres.conf) into lines of Key=Value pairs the way Slurm's own parser
// does (src/common/parse_config.c): a line ending in an odd number of
// backslashes continues on the next; "#" starts a comment unless escaped
// ("\#"); "\x" stands for x; keys are letters, digits, "_" and "."; a
// value is a double-quoted string or a run of non-blank characters, and
// blanks may surround "=". "Include FILE" lines are returned as such for
// the caller to resolve. It also parses Slurm's minute-based times.
//
// It is the lexer shared by scheduler/slurmconf (priority and scheduler
// keys) and cluster/machine (nodes and partitions), which cannot import
// each other. Files: lex.go, time.go. Pure: it reads an io.Reader.
package slurmlex
