; Capture convention: see python.scm.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(type_definition
  declarator: (type_identifier) @name) @definition.type

(preproc_def
  name: (identifier) @name) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.macro

; a prototype: the file declares a function that another file may define
; (indexer/bind_c.py); stored as a `declare` row, not listed as a reference
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @reference.declare

; `for_each_node(n) kfree(p);` in a body: the C grammar reads the loop macro
; as the type of a declaration of kfree; extract.py keeps it only in a body
(declaration
  type: (macro_type_specifier)
  declarator: (function_declarator declarator: (identifier) @name)) @reference.call

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
  ]) @reference.call

(preproc_include
  path: [
    (string_literal (string_content) @name)
    (system_lib_string) @name
  ]) @reference.import

(declaration
  type: (type_identifier) @name) @reference.type

(parameter_declaration
  type: (type_identifier) @name) @reference.type

; a function named in a designated initializer, as an ops table names its
; handlers (`.open = drv_open`): a use, bound through the includes as a call
; is; extract.py drops an all-capitals name (a macro's or enumerator's value)
(initializer_pair value: (identifier) @name @reference.use)
