package model

import (
	"errors"
	"fmt"
)

// Code classifies an Error so that each outer layer (CLI exit status, HTTP
// status) maps it in one place.
type Code string

// The error vocabulary shared by every layer.
const (
	Invalid    Code = "invalid"
	NotFound   Code = "not_found"
	Conflict   Code = "conflict"
	Restricted Code = "restricted"
	Internal   Code = "internal"
)

// Error is a domain error. Field and Value name what was wrong so that a user
// can act on the message without reading code.
type Error struct {
	Code    Code
	Field   string
	Value   string
	Message string
}

func (e *Error) Error() string {
	switch {
	case e.Field != "" && e.Value != "":
		return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Message)
	case e.Field != "":
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	default:
		return e.Message
	}
}

// Invalidf returns an Invalid error about field, which had value.
func Invalidf(field, value, format string, args ...any) *Error {
	return &Error{Code: Invalid, Field: field, Value: value, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a NotFound error.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Code: NotFound, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, Internal
// for any other non-nil error and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}
