; Capture convention: see python.scm.
(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; `@interface Body`: an annotation interface, as the JLS calls it
(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(record_declaration
  name: (identifier) @name) @definition.class

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(field_declaration
  (modifiers "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; any other field (`private final Repo repo;`)
(field_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.field

(method_invocation
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
  ]) @reference.call

; `new Retrofit.Builder()`: the nested class, named through its outer one
(object_creation_expression
  type: [
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.call

(superclass
  [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
  ]) @reference.inherit

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
    ])) @reference.inherit

(import_declaration
  (scoped_identifier
    scope: (_) @module
    name: (identifier) @name)) @reference.import

; a method passed as a value: `list.forEach(this::handle)`, `super::handle`
; (extract.py binds it as `this.handle()` is), `Repo::parse` and `repo::save`
; (bind_java.py gives the receiver's class, as for `repo.save()`); a
; constructor passed as a value, `Repo::new`, is a use of the class
(method_reference (_) (identifier) @name) @reference.use
(method_reference . (identifier) @name . "new") @reference.use
