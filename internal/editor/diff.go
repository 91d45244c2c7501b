package editor

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Diff lists the leaves that differ between two message bodies, so the CLI
// can print exactly what an edit changes.
func Diff(oldBody, newBody []byte) ([]string, error) {
	before, after := map[string]string{}, map[string]string{}
	for _, x := range []struct {
		body []byte
		into map[string]string
	}{{oldBody, before}, {newBody, after}} {
		if x.body == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(x.body, &v); err != nil {
			return nil, fmt.Errorf("diff: %w", err)
		}
		flatten("", v, x.into)
	}
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		b, okB := before[k]
		a, okA := after[k]
		switch {
		case okB && okA && a == b:
		case !okB:
			out = append(out, fmt.Sprintf("%s: %s", k, a))
		case !okA:
			out = append(out, fmt.Sprintf("%s: %s → (none)", k, b))
		default:
			out = append(out, fmt.Sprintf("%s: %s → %s", k, b, a))
		}
	}
	sort.Strings(out)
	return out, nil
}

func flatten(prefix string, v any, into map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			if prefix == "" && k == "v" {
				continue // the schema version is not the editor's business
			}
			if prefix == "" && k == "data" {
				p = ""
			}
			flatten(p, e, into)
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), e, into)
		}
	default:
		b, _ := json.Marshal(x)
		into[prefix] = string(b)
	}
}
