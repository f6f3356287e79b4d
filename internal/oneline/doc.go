// Package oneline keeps error messages on one line when they quote input:
// a library's message that embeds a raw newline or carriage return from a
// user's file would otherwise break drsim's one-line error rule.
package oneline
