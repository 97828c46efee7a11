package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
)

// defaultPort is where the server listens and the extension looks first.
const defaultPort = 7890

// portFlag is a --port flag that keeps what was typed, so that a bad value
// is refused by resolve with a message naming where it came from, rather
// than by the flag package or, worse, by silently using the default.
type portFlag struct {
	raw string
	set bool
}

func (p *portFlag) String() string { return p.raw }

func (p *portFlag) Set(v string) error {
	p.raw, p.set = v, true
	return nil
}

// resolve is the port in effect: --port, else GASOLINE_PORT, else
// defaultPort. A value that is not a TCP port (1-65535) is an error naming
// its source and the value as given.
func (p *portFlag) resolve() (int, error) {
	src, raw := "--port "+strconv.Quote(p.raw), p.raw
	if !p.set {
		raw = os.Getenv("GASOLINE_PORT")
		if raw == "" {
			return defaultPort, nil
		}
		src = "GASOLINE_PORT=" + strconv.Quote(raw)
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%s is not a port (1-65535)", src)
	}
	return n, nil
}

// subFlags is a subcommand's flag set: its help goes to stdout (exit 0),
// its errors to stderr (exit 2), as a CLI should. Every subcommand takes
// --port, resolved as the server resolves it.
type subFlags struct {
	*flag.FlagSet
	name, usage    string
	stdout, stderr io.Writer
	maxArgs        int      // positional arguments allowed, anywhere among the flags
	args           []string // the positional arguments, once parsed
	portFlag       portFlag
	port           int // the resolved port, once parsed
}

func newSubFlags(name, usage string, stdout, stderr io.Writer) *subFlags {
	f := &subFlags{FlagSet: flag.NewFlagSet("gasoline "+name, flag.ContinueOnError), name: name, usage: usage, stdout: stdout, stderr: stderr}
	f.SetOutput(io.Discard)
	f.Var(&f.portFlag, "port", "")
	return f
}

// parse returns -1 to go on, or the exit code.
func (f *subFlags) parse(args []string) int {
	for {
		err := f.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(f.stdout, f.usage)
			return 0
		case err != nil:
			return f.fail("%v", err)
		}
		rest := f.Args()
		if len(rest) == 0 {
			break
		}
		// Flags may follow a positional argument (gasoline extension DIR
		// --port N); after "--" everything is positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			f.args = append(f.args, rest...)
			break
		}
		f.args, args = append(f.args, rest[0]), rest[1:]
	}
	if len(f.args) > f.maxArgs {
		return f.fail("unexpected argument %q", f.args[f.maxArgs])
	}
	port, err := f.portFlag.resolve()
	if err != nil {
		return f.fail("%v", err)
	}
	f.port = port
	return -1
}

func (f *subFlags) fail(format string, a ...any) int {
	fmt.Fprintf(f.stderr, "gasoline %s: %s (see gasoline %s --help)\n", f.name, fmt.Sprintf(format, a...), f.name)
	return 2
}
