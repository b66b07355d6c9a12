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

; Python references are not captured here: indexer/bind_python.py walks the
; tree with Python's scoping rules, so each reference says what it names.
