package events

import (
	"context"
	"fmt"

	"github.com/footdata/footballd/pkg/model"
)

// ClientByToken returns the active client a token's hash (model.HashToken)
// was issued to, as the stream's leader has it, and the sequence of the
// client's revision read; an error with code model.NotFound when no
// active client holds it. It is for a replica that meets a token before
// it has applied the client: one leader read of the token's pointer
// (model.ClientToken), and for a pointer found a second of the client's
// own subject, which alone decides. A token issued by an editor older than
// the pointers has none, and is found by the replica's own replay only.
func (s *Store) ClientByToken(ctx context.Context, tokenHash string) (model.Client, uint64, error) {
	// A hash is one subject token of hex digits: anything else (a wildcard)
	// must not become a subject.
	if !model.ValidTokenHash(tokenHash) {
		return model.Client{}, 0, model.NotFoundf("no client has token hash %q", tokenHash)
	}
	ptr, _, err := Load[model.ClientToken](ctx, s, Subject(KindClientToken, tokenHash))
	if err != nil {
		return model.Client{}, 0, err
	}
	c, rev, err := Load[model.Client](ctx, s, Subject(KindClient, ptr.Client))
	if err != nil {
		return model.Client{}, 0, fmt.Errorf("client of token hash %.8s…: %w", tokenHash, err)
	}
	if c.TokenHash != tokenHash || c.Revoked || c.Validate() != nil || c.Name != ptr.Client {
		return model.Client{}, 0, model.NotFoundf("client %s no longer holds token hash %.8s…", ptr.Client, tokenHash)
	}
	return c, rev.Seq, nil
}
