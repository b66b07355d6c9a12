; JSX (JavaScript and TSX): an element named by a component is a call of
; it, as React calls it: `<Button />`, `<ui.Card>`. Lower-case names are the
; host's elements (`<div>`), not references.

(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_opening_element
  name: (member_expression
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    property: (property_identifier) @name)) @reference.call

; `onClick={save}`: a name used as a value (ecmascript.scm's rule)
(jsx_expression (identifier) @name @reference.use)
; `onClick={this.handleClick}` in a class component, `onClick={actions.save}`
(jsx_expression (member_expression object: [(this) (identifier)] property: (property_identifier) @name) @reference.use)
