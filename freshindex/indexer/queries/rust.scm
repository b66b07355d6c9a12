; Capture convention: see python.scm. An impl block is a @scope: its methods
; are qualified by the implemented type.
(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.struct

(type_item
  name: (type_identifier) @name) @definition.type

(trait_item
  name: (type_identifier) @name) @definition.interface

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(mod_item
  name: (identifier) @name) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ]) @scope

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (scoped_identifier name: (identifier) @name)
  ]) @reference.call

(macro_invocation
  macro: (identifier) @name) @reference.call

; a function passed or stored as a value: `.map_err(Error::io)`, `.map(parse)`,
; `S { cb: parse }`, `let h = parse;`, `return parse` (extract.py keeps those
; naming the file's item, an import's or, through bind_rust.py, a type's, and
; not a path to an enum's variant, `Token::ZeroOrMore`, which is no definition)
(arguments (identifier) @name @reference.use)
(arguments (scoped_identifier name: (identifier) @name) @reference.use)
(field_initializer value: (identifier) @name @reference.use)
(field_initializer value: (scoped_identifier name: (identifier) @name) @reference.use)
(let_declaration value: (identifier) @name @reference.use)
(let_declaration value: (scoped_identifier name: (identifier) @name) @reference.use)
(return_expression (identifier) @name @reference.use)
(shorthand_field_initializer (identifier) @name @reference.use)
(array_expression (identifier) @name @reference.use)
(tuple_expression (identifier) @name @reference.use)
(assignment_expression right: (identifier) @name @reference.use)
; serde names a function in a string: `#[serde(default = "default_port")]`,
; `deserialize_with = "from_hex"` (extract.py keeps the keys that take one)
(attribute
  (identifier)
  arguments: (token_tree (string_literal (string_content) @name) @reference.use))

; a call written in a macro's arguments (`assert_eq!(s.get(), make())`): the
; grammar keeps them as tokens, a name then `(...)`; extract.py keeps those
; whose next token is the parenthesis (not `format!(...)`, not `a[0]`),
; three token trees deep
(macro_invocation
  (token_tree (identifier) @name . (token_tree))) @reference.call

(macro_invocation
  (token_tree (token_tree (identifier) @name . (token_tree)))) @reference.call

(macro_invocation
  (token_tree (token_tree (token_tree (identifier) @name . (token_tree))))) @reference.call

(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @reference.call

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @reference.inherit

(use_declaration
  argument: (scoped_identifier
    path: (_) @module
    name: (identifier) @name)) @reference.import

(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @module name: (identifier) @name)
    alias: (identifier) @alias)) @reference.import

(use_declaration
  argument: (scoped_use_list
    path: (_) @module
    list: (use_list (identifier) @name))) @reference.import

; a struct's named field (`pub age: u32`), qualified by the struct: User.age
(struct_item
  body: (field_declaration_list
    (field_declaration name: (field_identifier) @name) @definition.field))
