; Capture convention: see python.scm.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

(method_definition
  name: (property_identifier) @name) @definition.method

; a class field holding a function (`handle = () => {...}`): a method, called `this.handle()`
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; any other class field (`count = 0`)
(field_definition
  property: (property_identifier) @name) @definition.field

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)

(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (new_expression) (call_expression)
              (identifier) (member_expression) (subscript_expression) (parenthesized_expression) (await_expression) (binary_expression) (ternary_expression) (unary_expression) (true) (false) (null) (regex) (class)]) @definition.constant))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(number) (string) (template_string) (object) (array) (new_expression) (call_expression)
              (identifier) (member_expression) (subscript_expression) (parenthesized_expression) (await_expression) (binary_expression) (ternary_expression) (unary_expression) (true) (false) (null) (regex) (class)]) @definition.constant)))

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    property: (property_identifier) @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.call

(class_heritage
  (identifier) @name) @reference.inherit

(class_heritage
  (member_expression property: (property_identifier) @name)) @reference.inherit

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (identifier) @name !alias)))
  source: (string (string_fragment) @module)) @reference.import

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (identifier) @name alias: (identifier) @alias)))
  source: (string (string_fragment) @module)) @reference.import

(import_statement
  (import_clause (identifier) @name)
  source: (string (string_fragment) @module)) @reference.import

(import_statement
  (import_clause (namespace_import (identifier) @name))
  source: (string (string_fragment) @module)) @reference.import

; CommonJS: `const m = require("./m")` binds the module, `const { a, b: c } =
; require("./m")` its members
(variable_declarator
  name: [
    (identifier) @name
    (object_pattern (shorthand_property_identifier_pattern) @name)
    (object_pattern (pair_pattern key: (property_identifier) @name value: (identifier) @alias))
  ]
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string (string_fragment) @module) .))
  (#eq? @_require "require")) @reference.import

; `var parse = require("./utils").parse`: the module's member, as `const { parse }`
(variable_declarator
  name: (identifier) @alias
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string (string_fragment) @module) .))
    property: (property_identifier) @name)
  (#eq? @_require "require")) @reference.import

; a class field holding a function: `handler = logerror`
(field_definition value: (identifier) @name @reference.use)

; a parameter's default that names a function or constant (`save = persist`): a use
(assignment_pattern right: (identifier) @name @reference.use)
