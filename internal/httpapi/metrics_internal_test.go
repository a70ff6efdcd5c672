package httpapi

import "testing"

// Methods and statuses outside their closed sets share one label value,
// so that neither a client nor a handler can add series without end.
func TestMetricLabelSets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		got      string
		expected string
	}{
		{"GET", methodLabel("GET"), "GET"},
		{"OPTIONS", methodLabel("OPTIONS"), "OPTIONS"},
		{"a made-up method", methodLabel("BREW"), "other"},
		{"a known method in lower case", methodLabel("get"), "other"},
		{"CONNECT, which no route serves", methodLabel("CONNECT"), "other"},
		{"200", statusLabel(200), "200"},
		{"nothing written", statusLabel(0), "200"},
		{"404", statusLabel(404), "404"},
		{"a code HTTP does not define", statusLabel(299), "other"},
		{"the highest code net/http writes", statusLabel(999), "other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.expected {
				t.Errorf("got %q, want %q", tt.got, tt.expected)
			}
		})
	}
}
