"""What makes a class hierarchy known to the linker, which dispatch rows
(tests/integration/test_dispatch.py) walk: ``super``/``base`` calls bound to
the bases' method, Java's member types and same-package classes (under a
dotted folder too), Kotlin's bases and constructors of the package, a C#
partial class's bases from all its parts, and a base outside the
repository making ``super`` external."""

from __future__ import annotations

from tests.integration.test_binding import linked_calls


def test_super_and_base_calls_bind_to_the_method_the_bases_define() -> None:
    java = linked_calls(
        {
            "src/a/Impl.java": "package a;\npublic class Impl {\n    public void save() {}\n}\n",
            "src/a/Sub.java": (
                "package a;\npublic class Sub extends Impl {\n"
                "    public void save() {\n        super.save();\n    }\n}\n"
            ),
        },
        "java",
    )
    assert java[("src/a/Sub.java", 4, "save", 14)] == ("bound", "src/a/Impl.java::Impl.save")
    for language, suffix in (("typescript", "ts"), ("javascript", "js")):
        got = linked_calls(
            {
                f"shape.{suffix}": "export class Shape {\n  area() {\n    return 0;\n  }\n}\n",
                f"square.{suffix}": (
                    'import { Shape } from "./shape";\n'
                    "export class Square extends Shape {\n"
                    "  area() {\n    return super.area() + 1;\n  }\n}\n"
                ),
            },
            language,
        )
        assert got[(f"square.{suffix}", 4, "area", 17)] == (
            "bound",
            f"shape.{suffix}::Shape.area",
        ), language
    csharp = linked_calls(
        {
            "A/Base.cs": "namespace A {\n  public class Base {\n    public virtual void Run() {}\n  }\n}\n",
            "A/Impl.cs": (
                "namespace A {\n  public class Impl : Base {\n"
                "    public override void Run() { base.Run(); }\n  }\n}\n"
            ),
        },
        "csharp",
    )
    assert csharp[("A/Impl.cs", 3, "Run", 38)] == ("bound", "A/Base.cs::A.Base.Run")
    kotlin = linked_calls(
        {
            "a/Base.kt": "package a\n\nopen class Base {\n    open fun run() {}\n}\n",
            "a/Impl.kt": (
                "package a\n\nclass Impl : Base() {\n    override fun run() {\n"
                "        super.run()\n        this.done()\n    }\n\n    fun done() {}\n\n"
                "    fun make() = object : Base() {\n        override fun run() {\n"
                "            this.done()\n        }\n    }\n\n"
                "    fun fresh() = Base()\n}\n"
            ),
        },
        "kotlin",
        kinds=("call", "inherit"),
    )
    # a class of the package, with no import; then super and this
    assert kotlin[("a/Impl.kt", 3, "Base", 13)] == ("bound", "a/Base.kt::Base")
    assert kotlin[("a/Impl.kt", 5, "run", 14)] == ("bound", "a/Base.kt::Base.run")
    assert kotlin[("a/Impl.kt", 6, "done", 13)] == ("bound", "a/Impl.kt::Impl.done")
    # `this` inside an object expression is the object, not Impl
    assert kotlin[("a/Impl.kt", 13, "done", 17)][0] == "candidate"
    # a class of the package made with no import: its constructor
    assert kotlin[("a/Impl.kt", 17, "Base", 18)] == ("bound", "a/Base.kt::Base")


def test_java_member_types_and_packages_under_a_dotted_folder_bind() -> None:
    files: dict[str, str | bytes] = {
        # an unpacked release: a folder name with dots above the package
        "lib-1.2.0/src/org/a/Parser.java": "package org.a;\npublic class Parser<T> {}\n",
        "lib-1.2.0/src/org/a/AttrParser.java": (
            "package org.a;\nimport java.util.List;\n"
            "public class AttrParser extends Parser<List<String>> {}\n"
        ),
        "lib-1.2.0/src/org/a/Outer.java": (
            "package org.a;\npublic class Outer {\n"
            "  interface Supplier { Object get(); }\n"
            "  static class First implements Supplier { public Object get() { return 1; } }\n"
            "  static class Second extends First {}\n"
            "  static Supplier make() { return new Second(); }\n"
            "}\n"
        ),
    }
    got = linked_calls(files, "java", kinds=("inherit", "call"))
    where = "lib-1.2.0/src/org/a"
    expected = {
        ("AttrParser.java", 3, "Parser", 32): "Parser.java::Parser",
        ("Outer.java", 4, "Supplier", 32): "Outer.java::Outer.Supplier",  # implements
        ("Outer.java", 5, "First", 30): "Outer.java::Outer.First",  # extends
        ("Outer.java", 6, "Second", 38): "Outer.java::Outer.Second",  # new Second()
    }
    for (file, line, name, col), target in expected.items():
        assert got[(f"{where}/{file}", line, name, col)] == ("bound", f"{where}/{target}")


def test_super_reaches_a_partial_class_base_or_says_it_is_outside() -> None:
    # C#: the bases of a partial class are read from each of its parts
    csharp = linked_calls(
        {
            "R/PyObject.cs": (
                "namespace R {\n  public class PyObject {\n"
                "    public virtual bool Same(object o) { return true; }\n  }\n}\n"
            ),
            "R/PyInt.cs": "namespace R {\n  public partial class PyInt : PyObject {\n  }\n}\n",
            "R/PyInt.Cmp.cs": (
                "namespace R {\n  public partial class PyInt {\n"
                "    public bool Same(PyInt o) => base.Same(o);\n  }\n}\n"
            ),
        },
        "csharp",
    )
    assert csharp[("R/PyInt.Cmp.cs", 3, "Same", 38)] == ("bound", "R/PyObject.cs::R.PyObject.Same")
    # a base from outside the repository: the call is external, not a name match
    outside = {
        ("kotlin", "a/V.kt", 7, "onLayout", 14): (
            "package a\n\nimport android.view.ViewGroup\n\nclass V : ViewGroup() {\n"
            "    override fun onLayout() {\n        super.onLayout()\n    }\n}\n"
        ),
        ("python", "m.py", 6, "save", 16): (
            "from django.db import models\n\n\nclass M(models.Model):\n"
            "    def save(self):\n        super().save()\n"
        ),
    }
    for (language, path, line, name, col), source in outside.items():
        got = linked_calls({path: source}, language)
        assert got[(path, line, name, col)] == ("external", None), language
