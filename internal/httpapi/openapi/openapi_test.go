package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestJSONIsTheYAML: the served JSON holds exactly what openapi.yaml says.
func TestJSONIsTheYAML(t *testing.T) {
	doc, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML any
	if err := yaml.Unmarshal(YAML, &fromYAML); err != nil {
		t.Fatal(err)
	}
	viaJSON, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(viaJSON, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the JSON differs from the YAML")
	}
}

// TestJSONKeepsTheOrder: the routes come in the order written, which the
// reference page follows.
func TestJSONKeepsTheOrder(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal(YAML, &root); err != nil {
		t.Fatal(err)
	}
	var want []string
	top := root.Content[0]
	for i := 0; i < len(top.Content); i += 2 {
		if top.Content[i].Value == "paths" {
			paths := top.Content[i+1]
			for j := 0; j < len(paths.Content); j += 2 {
				want = append(want, paths.Content[j].Value)
			}
		}
	}
	doc, _ := JSON()
	var paths json.RawMessage
	var whole struct {
		Paths *json.RawMessage `json:"paths"`
	}
	whole.Paths = &paths
	if err := json.Unmarshal(doc, &whole); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(paths))
	var got []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				got = append(got, v)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if len(want) < 40 || !reflect.DeepEqual(got, want) {
		t.Fatalf("paths in JSON %v, want %v", got, want)
	}
}
