#!/bin/sh
# Doxygen's input filter for the Markdown pages (docs/Doxyfile.in): Doxygen 1.9 names headings' anchors its own way,
# not GitHub's, so a link to a heading keeps its page and drops the heading ([text](#a) becomes text,
# [text](page.md#a) becomes [text](page.md)). The pages on GitHub keep their links.
exec sed -E -e 's/\[([^]]*)\]\(#[^)]*\)/\1/g' -e 's/\]\(([^)#]+\.md)#[^)]*\)/](\1)/g' "$1"
