// Package migrations embeds the numbered SQL migrations (goose format).
// sqlc reads the same files as its schema.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
