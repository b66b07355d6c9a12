; Capture convention: see python.scm. Used for .ts and .tsx (both grammars).
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(function_signature
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum
; an enum's members (`HS256 = "HS256"`, `Plain`): AlgorithmTypes.HS256
(enum_body (enum_assignment name: (property_identifier) @name) @definition.constant)
(enum_body name: (property_identifier) @name @definition.constant)

(method_definition
  name: (property_identifier) @name) @definition.method

; a class field holding a function (`handle = () => {...}`): a method, called `this.handle()`
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; any other class field (`count = 0`, `private items: string[] = []`)
(public_field_definition
  name: (property_identifier) @name) @definition.field

; a constructor's parameter property (`constructor(private readonly repo:
; Repo)`, NestJS's and Angular's injected services): a field of the class,
; which extract.py takes out of the constructor
(method_definition
  name: (property_identifier) @_constructor
  parameters: (formal_parameters
    [(required_parameter (accessibility_modifier) pattern: (identifier) @name)
     (required_parameter "readonly" pattern: (identifier) @name)
     (optional_parameter (accessibility_modifier) pattern: (identifier) @name)
     (optional_parameter "readonly" pattern: (identifier) @name)] @definition.field)
  (#eq? @_constructor "constructor"))

; an interface's property (`name: string`)
(interface_body
  (property_signature
    name: (property_identifier) @name) @definition.property)

; a type alias's object type (`type Repo = {save: () => void}`, or one side
; of `{...} & Promise<R>`), as an interface's body: its properties are
; members of the alias
(type_alias_declaration
  value: [
    (object_type
      (property_signature
        name: (property_identifier) @name) @definition.property)
    (intersection_type
      (object_type
        (property_signature
          name: (property_identifier) @name) @definition.property))
  ])

; a union's object types (`type Result = {ok: true; value: V} | {ok: false}`):
; their properties are the alias's, a name on two sides defined on each;
; extract.py keeps only an alias's own union, not one in a parameter's type
(union_type
  (object_type
    (property_signature
      name: (property_identifier) @name) @definition.property))

; the same inside `Readonly<{...}>`, `Partial<{...}>` or `Required<{...}>`,
; which keep the object type's members (`type Base = Readonly<{x: number}>`)
(type_alias_declaration
  value: (generic_type
    name: (type_identifier) @_wrapper
    (type_arguments
      (object_type
        (property_signature
          name: (property_identifier) @name) @definition.property)))
  (#any-of? @_wrapper "Readonly" "Partial" "Required"))
(type_alias_declaration
  value: (intersection_type
    (generic_type
      name: (type_identifier) @_wrapper
      (type_arguments
        (object_type
          (property_signature
            name: (property_identifier) @name) @definition.property))))
  (#any-of? @_wrapper "Readonly" "Partial" "Required"))
(type_alias_declaration
  value: (generic_type
    name: (type_identifier) @_wrapper
    (type_arguments
      (intersection_type
        (object_type
          (property_signature
            name: (property_identifier) @name) @definition.property))))
  (#any-of? @_wrapper "Readonly" "Partial" "Required"))

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

(internal_module
  name: (identifier) @name) @definition.module

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function)

(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (object) (array) (new_expression) (call_expression)
              (identifier) (member_expression) (subscript_expression) (parenthesized_expression) (await_expression) (binary_expression) (ternary_expression) (unary_expression) (true) (false) (null) (regex) (class) (as_expression) (satisfies_expression) (non_null_expression)]) @definition.constant))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(number) (string) (template_string) (object) (array) (new_expression) (call_expression)
              (identifier) (member_expression) (subscript_expression) (parenthesized_expression) (await_expression) (binary_expression) (ternary_expression) (unary_expression) (true) (false) (null) (regex) (class) (as_expression) (satisfies_expression) (non_null_expression)]) @definition.constant)))

; the keys of a top-level object written `{...} as const` or `{...} satisfies
; T` (ecmascript.scm reads a bare one's): its methods, then its properties
(program
  (lexical_declaration
    (variable_declarator
      value: [(as_expression (object (pair
                key: (property_identifier) @name
                value: [(arrow_function) (function_expression)]) @definition.method))
              (satisfies_expression (object (pair
                key: (property_identifier) @name
                value: [(arrow_function) (function_expression)]) @definition.method))])))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        value: [(as_expression (object (pair
                  key: (property_identifier) @name
                  value: [(arrow_function) (function_expression)]) @definition.method))
                (satisfies_expression (object (pair
                  key: (property_identifier) @name
                  value: [(arrow_function) (function_expression)]) @definition.method))]))))

(program
  (lexical_declaration
    (variable_declarator
      value: [(as_expression (object (pair key: (property_identifier) @name) @definition.property))
              (satisfies_expression
                (object (pair key: (property_identifier) @name) @definition.property))])))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        value: [(as_expression (object (pair key: (property_identifier) @name) @definition.property))
                (satisfies_expression
                  (object (pair key: (property_identifier) @name) @definition.property))]))))

; `declare const md5_hex: RegExp;`: a declaration file's API, exported or not
(program
  (ambient_declaration
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.constant)))

(program
  (export_statement
    (ambient_declaration
      (lexical_declaration
        (variable_declarator name: (identifier) @name) @definition.constant))))

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (member_expression
    property: (property_identifier) @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.call

(extends_clause
  value: (identifier) @name) @reference.inherit

(extends_clause
  value: (member_expression property: (property_identifier) @name)) @reference.inherit

(implements_clause
  (type_identifier) @name) @reference.inherit

(extends_type_clause
  type: (type_identifier) @name) @reference.inherit

; a type alias of an intersection (`type Text = Base & {...}`, `A & B & C`)
; derives from each named type in it, as an interface extends them
(type_alias_declaration
  value: (intersection_type
    (type_identifier) @name) @reference.inherit)
(type_alias_declaration
  value: (intersection_type
    (intersection_type
      (type_identifier) @name)) @reference.inherit)
(type_alias_declaration
  value: (intersection_type
    (intersection_type
      (intersection_type
        (type_identifier) @name))) @reference.inherit)
; and an alias of `Readonly<A>`, `Partial<A & {...}>` or `Required<A & B>`
; from what it wraps (excalidraw's `Readonly<_CommonCanvasAppState & {...}>`)
(type_alias_declaration
  value: (generic_type
    name: (type_identifier) @_wrapper
    (type_arguments
      [(type_identifier) @name
       (intersection_type (type_identifier) @name)
       (intersection_type (intersection_type (type_identifier) @name))])) @reference.inherit
  (#any-of? @_wrapper "Readonly" "Partial" "Required"))

(type_annotation
  (type_identifier) @name) @reference.type

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

; a class field holding a function: `private errorHandler = errorHandler`
(public_field_definition value: (identifier) @name @reference.use)

; a parameter's default that names a function or constant (`save = persist`): a use
(required_parameter value: (identifier) @name @reference.use)
(optional_parameter value: (identifier) @name @reference.use)
