package readmodel

import (
	"fmt"
	"testing"
)

// TestTableNamesOf checks the branch-free search for every id of tables
// of 0 to 9 teams, and for ids below, between and above them.
func TestTableNamesOf(t *testing.T) {
	for size := range 10 {
		names := &tableNames{}
		for i := range size {
			id := int32(10 * (i + 1))
			names.ids = append(names.ids, id)
			names.names = append(names.names, tableName{name: fmt.Sprint("team ", id)})
		}
		for id := int32(-5); id <= int32(10*size+15); id += 5 {
			got := names.of(id)
			if id > 0 && id%10 == 0 && id <= int32(10*size) {
				if want := fmt.Sprint("team ", id); got == nil || got.name != want {
					t.Errorf("%d teams, id %d: got %v, want %s", size, id, got, want)
				}
			} else if got != nil {
				t.Errorf("%d teams, id %d: got %v, want none", size, id, got)
			}
		}
	}
	if (*tableNames)(nil).of(1) != nil {
		t.Error("no names: found one")
	}
}
