package events

import (
	"encoding/json"
	"fmt"

	"github.com/footdata/footballd/pkg/model"
)

// SchemaVersion is the version of the message body written today. Readers
// accept every version up to it; a newer one means the reader is too old.
// When it must change, and when it need not: the package's documentation,
// "Compatibility".
const SchemaVersion = 1

// envelope is the body of every message: the schema version and the full
// state of one entity.
type envelope[T any] struct {
	V    int `json:"v"`
	Data T   `json:"data"`
}

// Encode returns the message body for v.
func Encode(v any) ([]byte, error) {
	if f, ok := v.(*model.Fixture); ok {
		if b, ok := encodeFixture(make([]byte, 0, 384), f); ok {
			return b, nil
		}
	}
	b, err := json.Marshal(envelope[any]{V: SchemaVersion, Data: v})
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// Decode reads a message body into a T.
func Decode[T any](body []byte) (T, error) {
	var v T
	switch p := any(&v).(type) {
	case *model.Fixture:
		if fast, ok := decodeFixture(body); ok {
			*p = fast
			return v, nil
		}
	case *model.Squad:
		if fast, ok := decodeSquad(body); ok {
			*p = fast
			return v, nil
		}
	}
	return decodeJSON[T](body)
}

// decodeJSON is Decode's general path, apart so that the fast path's value
// stays on the stack: the envelope json.Unmarshal fills escapes to the heap,
// an allocation per fixture the replay would otherwise pay.
func decodeJSON[T any](body []byte) (T, error) {
	var e envelope[T]
	if err := json.Unmarshal(body, &e); err != nil {
		return e.Data, fmt.Errorf("decode %T: %w", e.Data, err)
	}
	if e.V < 1 || e.V > SchemaVersion {
		return e.Data, fmt.Errorf("decode %T: schema version %d is not supported (this build reads up to %d)", e.Data, e.V, SchemaVersion)
	}
	return e.Data, nil
}
