; Capture convention: see python.scm.
(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.object

(function_declaration
  name: (identifier) @name) @definition.function

(class_body
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.property)

(source_file
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.property)

; `class User(val name: String)`: a property too (a plain parameter is not)
(class_parameter
  ["val" "var"]
  (identifier) @name) @definition.property

(call_expression
  [
    (identifier) @name
    (navigation_expression (identifier) @name .)
  ]) @reference.call

(delegation_specifier
  [
    (user_type (identifier) @name)
    (constructor_invocation (user_type (identifier) @name))
  ]) @reference.inherit

(import
  (qualified_identifier) @name
  (identifier)? @alias) @reference.import

(parameter
  (user_type (identifier) @name)) @reference.type

; a function passed as a value: `list.forEach(::handle)` (extract.py binds
; it as a bare `handle()` is); the grammar reads `Repo::parse` and
; `repo::save` as a navigation, typed as `repo.save()` is (bind_kotlin.py);
; `Repo::class` is a class literal, which extract.py drops (a text predicate
; here read the source through the parse's callback once per match)
(callable_reference (identifier) @name) @reference.use
(navigation_expression (_) "::" (identifier) @name) @reference.use
