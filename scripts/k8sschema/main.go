// Command k8sschema turns a Kubernetes OpenAPI (swagger 2) document into
// the JSON schemas kubeconform reads, so that deploy/k8s is validated
// without the network: kubeconform fetches its schemas from GitHub unless
// told otherwise. The document comes from a Go module (the Makefile's
// deploy-check says which); the schemas are strict, as kubeconform's
// -strict variants are: an unknown field is an error.
//
//	go run ./scripts/k8sschema -swagger swagger.json -out DIR
//	kubeconform -strict -schema-location 'DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json' ...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	swagger := flag.String("swagger", "", "Kubernetes OpenAPI v2 document (swagger.json)")
	out := flag.String("out", "", "directory for the schemas")
	flag.Parse()
	if err := run(*swagger, *out); err != nil {
		fmt.Fprintln(os.Stderr, "k8sschema:", err)
		os.Exit(1)
	}
}

func run(swagger, out string) error {
	if swagger == "" || out == "" {
		return fmt.Errorf("-swagger and -out are required")
	}
	b, err := os.ReadFile(swagger)
	if err != nil {
		return err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", swagger, err)
	}
	if len(doc.Definitions) == 0 {
		return fmt.Errorf("%s: no definitions", swagger)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	kinds := 0
	for name, def := range doc.Definitions {
		strict(def)
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			group, _ := gvk["group"].(string)
			version, _ := gvk["version"].(string)
			kind, _ := gvk["kind"].(string)
			if err := writeJSON(filepath.Join(out, fileName(group, version, kind)), map[string]any{
				"$ref": "_definitions.json#/definitions/" + name,
			}); err != nil {
				return err
			}
			kinds++
		}
	}
	if err := writeJSON(filepath.Join(out, "_definitions.json"), map[string]any{"definitions": doc.Definitions}); err != nil {
		return err
	}
	fmt.Printf("k8sschema: %d kinds from %s\n", kinds, swagger)
	return nil
}

// fileName is kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json: the
// kind in lower case, the first part of the group and the version.
func fileName(group, version, kind string) string {
	suffix := "-" + version
	if group != "" {
		suffix = "-" + strings.Split(group, ".")[0] + suffix
	}
	return strings.ToLower(kind+suffix) + ".json"
}

// strict forbids fields a schema does not name, and lets an int-or-string
// be either: what kubeconform's own strict schemas do.
func strict(schema map[string]any) {
	if schema["format"] == "int-or-string" {
		delete(schema, "type")
		delete(schema, "format")
		schema["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
	}
	props, _ := schema["properties"].(map[string]any)
	_, set := schema["additionalProperties"]
	if props != nil && !set && schema["x-kubernetes-preserve-unknown-fields"] != true {
		schema["additionalProperties"] = false
	}
	for _, p := range props {
		if p, ok := p.(map[string]any); ok {
			strict(p)
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := schema[key].(map[string]any); ok {
			strict(sub)
		}
	}
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
