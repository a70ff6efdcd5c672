// Package openapi holds MediShare's OpenAPI 3.1 document, written by hand in
// openapi.yaml, and the reference page that renders it (docs/). Both are
// embedded in the binary; internal/httpapi serves them at /api/openapi.json
// and /api/docs, and the tests keep the document true (docs/api.md,
// "The OpenAPI document").
package openapi

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"go.yaml.in/yaml/v3"
)

// YAML is the document as written.
//
//go:embed openapi.yaml
var YAML []byte

//go:embed docs
var docs embed.FS

// Page is the reference page: index.html, docs.js and docs.css.
var Page = mustSub(docs, "docs")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // dir is embedded above: cannot fail
	}
	return sub
}

// The document as JSON, converted once when the program starts.
var asJSON, asJSONErr = toJSON(YAML)

// JSON is the document as JSON, its members in the order written (the
// reference page lists the routes in that order).
func JSON() ([]byte, error) { return asJSON, asJSONErr }

// toJSON converts YAML to JSON, keeping the order of mapping keys.
func toJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var b bytes.Buffer
	if err := writeNode(&b, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return b.Bytes(), nil
}

func writeNode(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: want one document", n.Line)
		}
		return writeNode(b, n.Content[0])
	case yaml.AliasNode:
		return writeNode(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode || key.Tag == "!!merge" {
				return fmt.Errorf("line %d: keys must be plain scalars", key.Line)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, key.Value); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeNode(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeNode(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		if n.Tag == "!!timestamp" { // a date stays the text it was written as
			return writeJSON(b, n.Value)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		return writeJSON(b, v)
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}
