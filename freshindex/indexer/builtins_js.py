"""Values of JavaScript's own types, for the JS/TS value flow
(indexer/flow_js.py): ``[]``, ``"a"``, `` `x${y}` ``, ``new Map()``,
``xs: string[]``, ``m: Map<string, User>``, and what their methods return
(``s.trim()`` is a string, ``s.split(",")`` an array).

A method called on such a value is the platform's (``external``), as
Python's are (indexer/builtins_python.py): ``this.cache.get(k)`` on a
``cache = new Map()`` is not a candidate for every ``get`` of the
repository. A name the file defines or imports (``class Map``,
``import { Set } from "immutable"``) is the file's, never the global's:
the flow asks its resolver first.
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

# globals whose instances `new` makes, as the types the flow names
CONSTRUCTED = frozenset(
    {
        "Array", "Map", "Set", "WeakMap", "WeakSet", "Date", "RegExp", "Promise",
        "Error", "TypeError", "RangeError", "URL", "URLSearchParams", "Headers",
        "FormData", "AbortController", "TextEncoder", "TextDecoder", "Uint8Array",
        "ArrayBuffer",
        # the fetch API's and the streams' (browsers, Node 18+, Deno, Bun, workers)
        "Response", "Request", "Blob", "File", "ReadableStream", "WritableStream",
        "TransformStream", "DataView", "Int8Array", "Int16Array", "Int32Array",
        "Uint8ClampedArray", "Uint16Array", "Uint32Array", "Float32Array", "Float64Array",
        "BigInt64Array", "BigUint64Array",
    }
)  # fmt: skip
# the browser's own types, as annotations name them (`event: KeyboardEvent`,
# `ctx: CanvasRenderingContext2D`) or `new` makes them (`new ResizeObserver(f)`)
DOM = frozenset(
    {
        "Event", "CustomEvent", "UIEvent", "MouseEvent", "PointerEvent", "WheelEvent",
        "KeyboardEvent", "TouchEvent", "DragEvent", "FocusEvent", "InputEvent",
        "ClipboardEvent", "MessageEvent", "ErrorEvent", "ProgressEvent", "StorageEvent",
        "EventTarget", "Node", "Element", "Document", "DocumentFragment", "Window",
        "ShadowRoot", "Text", "Comment", "HTMLElement", "HTMLDivElement",
        "HTMLSpanElement", "HTMLCanvasElement", "HTMLImageElement", "HTMLInputElement",
        "HTMLTextAreaElement", "HTMLButtonElement", "HTMLAnchorElement", "HTMLFormElement",
        "HTMLSelectElement", "HTMLOptionElement", "HTMLLabelElement", "HTMLVideoElement",
        "HTMLAudioElement", "HTMLMediaElement", "HTMLIFrameElement", "HTMLLinkElement",
        "HTMLScriptElement", "HTMLStyleElement", "HTMLTableElement", "HTMLUListElement",
        "HTMLLIElement", "HTMLHeadingElement", "HTMLParagraphElement", "HTMLDialogElement",
        "SVGElement", "SVGSVGElement", "SVGGElement", "SVGPathElement", "SVGTextElement",
        "SVGRectElement", "SVGImageElement", "SVGGraphicsElement",
        "CanvasRenderingContext2D", "OffscreenCanvas", "OffscreenCanvasRenderingContext2D",
        "ImageData", "ImageBitmap", "Path2D", "DOMMatrix", "DOMRect", "DOMRectReadOnly",
        "DOMParser", "XMLSerializer", "XMLHttpRequest", "WebSocket", "Worker",
        "MessagePort", "MessageChannel", "BroadcastChannel", "AbortSignal",
        "MutationObserver", "ResizeObserver", "IntersectionObserver", "Storage",
        "Selection", "Range", "FileReader", "FileList", "DataTransfer", "Image",
        "Location", "History", "Navigator", "Performance", "Clipboard",
    }
)  # fmt: skip
# the browser's objects that a file reads by name (`document.createElement()`)
GLOBAL_OBJECTS = {
    "document": "Document",
    "window": "Window",
    "navigator": "Navigator",
    "location": "Location",
    "history": "History",
    "localStorage": "Storage",
    "sessionStorage": "Storage",
    "performance": "Performance",
}
_LITERALS = {
    "array": "Array",
    "string": "String",
    "template_string": "String",
    "number": "Number",
    "regex": "RegExp",
    "true": "Boolean",
    "false": "Boolean",
}
_PREDEFINED = {"string": "String", "number": "Number", "boolean": "Boolean", "bigint": "BigInt"}
# generic annotations of the globals' types (`Map<K, V>`, `ReadonlyArray<T>`)
_GENERICS = {
    "Array": "Array",
    "ReadonlyArray": "Array",
    "Map": "Map",
    "ReadonlyMap": "Map",
    "Set": "Set",
    "ReadonlySet": "Set",
    "WeakMap": "WeakMap",
    "WeakSet": "WeakSet",
    "Promise": "Promise",
}
_STRING_TO_STRING = (
    "trim", "trimStart", "trimEnd", "toLowerCase", "toUpperCase", "replace", "replaceAll",
    "slice", "substring", "substr", "padStart", "padEnd", "repeat", "concat", "normalize",
    "toLocaleLowerCase", "toLocaleUpperCase", "charAt",
)  # fmt: skip
_ARRAY_TO_ARRAY = (
    "map", "filter", "slice", "concat", "flat", "flatMap", "sort", "reverse", "splice",
    "toSorted", "toReversed", "fill",
)  # fmt: skip
# methods of the globals' types whose result is of one of them
_RESULTS: dict[str, dict[str, str]] = {
    "String": {
        **dict.fromkeys(_STRING_TO_STRING, "String"),
        "split": "Array",
        "match": "Array",
        "toString": "String",
    },
    "Array": {**dict.fromkeys(_ARRAY_TO_ARRAY, "Array"), "join": "String", "toString": "String"},
    "Number": {"toFixed": "String", "toString": "String", "toPrecision": "String"},
    "Date": {"toISOString": "String", "toString": "String", "toJSON": "String"},
    "Map": {"set": "Map"},
    "Set": {"add": "Set"},
    "URLSearchParams": {"toString": "String"},
    "URL": {"toString": "String"},
    "Document": {
        "createElement": "HTMLElement",
        "createElementNS": "Element",
        "createTextNode": "Text",
        "createDocumentFragment": "DocumentFragment",
        "getElementById": "HTMLElement",
        "querySelector": "Element",
    },
    "HTMLCanvasElement": {"getContext": "CanvasRenderingContext2D"},
    "OffscreenCanvas": {"getContext": "OffscreenCanvasRenderingContext2D"},
}
# properties of the globals' types whose value is of one of them
_PROPERTIES: dict[str, dict[str, str]] = {
    "Response": {"headers": "Headers", "body": "ReadableStream", "url": "String"},
    "Request": {
        "headers": "Headers",
        "body": "ReadableStream",
        "url": "String",
        "method": "String",
        "signal": "AbortSignal",
    },
    "URL": {
        "searchParams": "URLSearchParams",
        **dict.fromkeys(
            ("href", "origin", "protocol", "host", "hostname", "port", "pathname", "search"),
            "String",
        ),
        "hash": "String",
    },
    "Error": {"message": "String", "name": "String", "stack": "String"},
    "Array": {"length": "Number"},
    "String": {"length": "Number"},
}
# what any element's (and a document's) own methods give
_ELEMENT_RESULTS = {"querySelector": "Element", "closest": "Element", "cloneNode": "Node"}


# functions of the globals whose result is of a global type
_STATICS = {
    ("Object", "keys"): "Array",
    ("Object", "values"): "Array",
    ("Object", "entries"): "Array",
    ("Array", "from"): "Array",
    ("Array", "of"): "Array",
    ("JSON", "stringify"): "String",
}


# global functions whose result is of a global type (once awaited)
_CALLED = {"fetch": "Response"}


def called(name: str) -> str | None:
    """The global type a call of the global function ``name`` gives."""
    return _CALLED.get(name)


def static(owner: str, method: str) -> str | None:
    """The global type ``Object.keys()`` and its like return, if one."""
    return _STATICS.get((owner, method))


def property_of(of: str, name: str) -> str | None:
    """The global type a property of a value of type ``of`` has, if it is
    one (``Response.headers``: a Headers)."""
    return _PROPERTIES.get(of, {}).get(name)


def named(name: str) -> str | None:
    """The global type a type's name is (``ReadonlyArray``: an Array), if
    the file's resolver found nothing of that name."""
    return _GENERICS.get(name) or (name if name in CONSTRUCTED or name in DOM else None)


def literal(node: ts.Node) -> str | None:
    """The global type of a literal (``[]``, ``"a"``, ``/x/``), or None."""
    return _LITERALS.get(node.type)


def result(of: str, method: str) -> str | None:
    """The global type ``method`` of a value of type ``of`` returns, if it
    is one (``String.split``: an Array)."""
    found = _RESULTS.get(of, {}).get(method)
    if found is None and (of.endswith("Element") or of in ("Document", "DocumentFragment")):
        return _ELEMENT_RESULTS.get(method)
    return found


def annotated(
    node: ts.Node | None,
    text: Callable[[ts.Node], str],
    own: Callable[[str], bool] = lambda _name: False,
) -> str | None:
    """The global type an annotation (``: string``, ``: User[]``, ``:
    Map<K, V> | undefined``) names, or None; ``own(name)``: the file has a
    type of that name (``Set<E>`` imported from its own types), which is
    no global's."""
    if node is None or node.type != "type_annotation" or node.named_child_count != 1:
        return None
    inner = node.named_children[0]
    if inner.type == "union_type":  # T | null | undefined
        kept = [c for c in inner.named_children if text(c) not in ("null", "undefined")]
        if len(kept) != 1:
            return None
        inner = kept[0]
    if inner.type == "readonly_type" and inner.named_child_count == 1:  # readonly T[]
        inner = inner.named_children[0]
    if inner.type == "predefined_type":
        return _PREDEFINED.get(text(inner))
    if inner.type == "array_type":
        return "Array"
    if inner.type == "generic_type" and (name := inner.child_by_field_name("name")) is not None:
        return None if own(text(name)) else _GENERICS.get(text(name))
    return None
