// Command protobuf-pointers prints, as JSON, what the protobuf messages of Kubernetes API types do not say but their
// Go structs do: which fields are Go pointers (`*int32`, `*bool`, `*string`, `*SomeStruct`...), whose explicit zero
// value is meaningful and present on the wire only when set, and which fields are embedded inline in the JSON form
// (`json:",inline"`: `VolumeSource` in `Volume`, `LocalObjectReference` in `SecretKeySelector`...). It reads the Go
// sources with go/parser only (standard library, no build of the packages), so it runs against any module directory
// of the Go module cache.
//
// Usage: go run main.go <dir>=<proto package> [...]
//
// Output: {"pointers": {"<proto package>.<Go type>": ["<protobuf field name>", ...]}, "inline": {...}}, keys and
// names sorted; types without such fields are left out.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: protobuf-pointers <dir>=<proto package> [...]")
		os.Exit(2)
	}
	out := fields{pointers: map[string][]string{}, inline: map[string][]string{}}
	for _, arg := range os.Args[1:] {
		dir, pkg, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "protobuf-pointers: %q is not <dir>=<proto package>\n", arg)
			os.Exit(2)
		}
		if err := collect(dir, pkg, out); err != nil {
			fmt.Fprintf(os.Stderr, "protobuf-pointers: %s: %v\n", dir, err)
			os.Exit(1)
		}
	}
	for _, table := range []map[string][]string{out.pointers, out.inline} {
		for _, names := range table {
			sort.Strings(names)
		}
	}
	encoded, err := json.MarshalIndent(map[string]map[string][]string{"pointers": out.pointers, "inline": out.inline}, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(string(encoded))
}

// fields maps proto message names to protobuf field names.
type fields struct {
	pointers map[string][]string
	inline   map[string][]string
}

// collect adds the pointer and inline fields of every struct type declared in dir's non-test Go files.
func collect(dir, pkg string, out fields) error {
	fset := token.NewFileSet()
	keep := func(info os.FileInfo) bool { return !strings.HasSuffix(info.Name(), "_test.go") }
	packages, err := parser.ParseDir(fset, dir, keep, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	for _, p := range packages {
		for _, file := range p.Files {
			for _, decl := range file.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.TYPE {
					continue
				}
				for _, spec := range gen.Specs {
					typeSpec := spec.(*ast.TypeSpec)
					structType, ok := typeSpec.Type.(*ast.StructType)
					if !ok {
						continue
					}
					key := pkg + "." + typeSpec.Name.Name
					for _, field := range structType.Fields.List {
						if field.Tag == nil {
							continue
						}
						name := protobufName(field)
						if name == "" {
							continue
						}
						if _, pointer := field.Type.(*ast.StarExpr); pointer {
							out.pointers[key] = append(out.pointers[key], name)
						}
						if len(field.Names) == 0 && jsonInline(field.Tag.Value) {
							out.inline[key] = append(out.inline[key], name)
						}
					}
				}
			}
		}
	}
	return nil
}

// tag is the struct tag's `key` value.
func tag(literal, key string) string {
	unquoted, err := strconv.Unquote(literal)
	if err != nil {
		return ""
	}
	return reflect.StructTag(unquoted).Get(key)
}

// protobufName is the protobuf field name of a field: the `name=` of its `protobuf:"..."` tag or, for an embedded
// field tagged without one, go-to-protobuf's lower-camel form of the embedded type's name; "" when it has no tag.
func protobufName(field *ast.Field) string {
	value := tag(field.Tag.Value, "protobuf")
	if value == "" {
		return ""
	}
	for _, part := range strings.Split(value, ",") {
		if name, ok := strings.CutPrefix(part, "name="); ok {
			return name
		}
	}
	if len(field.Names) == 0 {
		if ident, ok := field.Type.(*ast.Ident); ok {
			return strings.ToLower(ident.Name[:1]) + ident.Name[1:]
		}
	}
	return ""
}

// jsonInline is true for a field tagged `json:",inline"`.
func jsonInline(literal string) bool {
	name, options, _ := strings.Cut(tag(literal, "json"), ",")
	return name == "" && options == "inline"
}
