package web

import (
	"context"

	"github.com/toolgate/toolgate/internal/evidence"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// retryEvidence is the call evidence an approver reads beside a request
// to enable retry on a tool (R10): how the tool's calls ended under the
// policy in force, the one the request would change. Other requests get
// none (nil).
func (s *Server) retryEvidence(ctx context.Context, cr *store.ChangeRequest) (*views.OutcomesVM, error) {
	if cr.Kind != store.KindEnableMutationRetry {
		return nil, nil
	}
	before, _, err := cr.Policies()
	if err != nil {
		return nil, err
	}
	return s.toolOutcomes(ctx, cr.ToolName, evidence.Tool{Method: cr.Method, Policy: before})
}
