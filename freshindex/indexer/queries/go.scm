; Capture convention: see python.scm. A method's container is its receiver type
; (resolved in code, not here).
(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

; an interface's methods: a call on a value of the interface's type names one
(method_elem
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (pointer_type) (map_type) (slice_type) (array_type) (function_type) (channel_type) (generic_type)]) @definition.type

(source_file
  (const_declaration (const_spec name: (identifier) @name) @definition.constant))

; a named struct's field (`Name string`), qualified by the struct: User.Name
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration name: (field_identifier) @name) @definition.field)))

(source_file
  (var_declaration (var_spec name: (identifier) @name) @definition.variable))
; a `var ( ... )` block's variables
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
    (selector_expression field: (field_identifier) @name)
    (parenthesized_expression (selector_expression field: (field_identifier) @name))
  ]) @reference.call

(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type name: (type_identifier) @name)
  ]) @reference.call

(struct_type
  (field_declaration_list
    (field_declaration
      !name
      type: [
        (type_identifier) @name
        (qualified_type name: (type_identifier) @name)
        (pointer_type (type_identifier) @name)
      ]))) @reference.inherit

; an interface embedded in an interface: its methods are the outer one's
(interface_type
  (type_elem
    .
    [
      (type_identifier) @name
      (qualified_type name: (type_identifier) @name)
    ]
    .)) @reference.inherit

(import_spec
  name: (package_identifier) @alias
  path: (interpreted_string_literal (interpreted_string_literal_content) @module @name)) @reference.import

(import_spec
  !name
  path: (interpreted_string_literal (interpreted_string_literal_content) @module @name)) @reference.import

; a name used as a value, not called here: passed (`r.GET("/", list)`,
; `http.HandlerFunc(pkg.Serve)`), in a composite literal (`Handler: h`,
; `[]F{h}`), assigned (`var h = serve`, `f := pkg.Serve`, `s.cb = done`)
; or returned (`return serve`). extract.py keeps a row only where the
; name is a package-level one or an imported package's member: a local's
; read, and `nil` or `true`, name no definition.
(argument_list
  [(identifier) @name
   (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use)
(literal_value
  (literal_element
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
(keyed_element
  value: (literal_element
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
(var_spec
  value: (expression_list
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
(short_var_declaration
  right: (expression_list
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
(assignment_statement
  right: (expression_list
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
(return_statement
  (expression_list
    [(identifier) @name
     (selector_expression operand: (identifier) field: (field_identifier) @name)] @reference.use))
