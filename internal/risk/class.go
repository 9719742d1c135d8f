package risk

import (
	"fmt"
	"strings"
)

// Class is the risk class of an operation. The zero value is not a valid
// class; the ordering of the constants is the ordering of risk.
type Class int

// The risk classes, lowest first.
const (
	Read Class = iota + 1
	Write
	Destructive
	Privileged
)

// Classes lists every valid class, lowest first.
var Classes = []Class{Read, Write, Destructive, Privileged}

// String returns the class name as shown in the UI and in bundles.
func (c Class) String() string {
	switch c {
	case Read:
		return "READ"
	case Write:
		return "WRITE"
	case Destructive:
		return "DESTRUCTIVE"
	case Privileged:
		return "PRIVILEGED"
	default:
		return fmt.Sprintf("Class(%d)", int(c))
	}
}

// Valid reports whether c is one of the four classes.
func (c Class) Valid() bool { return c >= Read && c <= Privileged }

// ParseClass reads a class name, case-insensitively.
func ParseClass(s string) (Class, error) {
	for _, c := range Classes {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown risk class %q (want READ, WRITE, DESTRUCTIVE or PRIVILEGED)", s)
}

// MarshalText encodes the class as its name.
func (c Class) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("invalid risk class %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText decodes a class name.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Reason is one signal that contributed to a classification: a stable code
// such as "method:DELETE" or "scope:admin:org", the class the signal implies,
// and a sentence for people.
type Reason struct {
	Code  string `json:"code"`
	Class Class  `json:"class"`
	Text  string `json:"text"`
}

// Assessment is the outcome of classifying one operation: the highest class
// any signal implies, and every reason found (highest class first).
type Assessment struct {
	Class   Class    `json:"class"`
	Reasons []Reason `json:"reasons"`
}
