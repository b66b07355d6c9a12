; Capture convention (one per language, aider-style):
;   @definition.<kind> on the defining node, @name on its name
;   @reference.<kind>  on the referring node,  @name on the referred name
;   @module on an import's module spec, @alias on a local alias
;   @scope on a node that names a container without being a symbol
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant))

(call
  function: [
    (identifier) @name
    (attribute attribute: (identifier) @name)
  ]) @reference.call

(class_definition
  superclasses: (argument_list
    [
      (identifier) @name
      (attribute attribute: (identifier) @name)
    ])) @reference.inherit

(import_statement
  name: (dotted_name) @module @name) @reference.import

(import_statement
  name: (aliased_import
    name: (dotted_name) @module @name
    alias: (identifier) @alias)) @reference.import

(import_from_statement
  module_name: (_) @module
  name: (dotted_name) @name) @reference.import

(import_from_statement
  module_name: (_) @module
  name: (aliased_import
    name: (dotted_name) @name
    alias: (identifier) @alias)) @reference.import
