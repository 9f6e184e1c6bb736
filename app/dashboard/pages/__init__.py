"""One package per page (`tab=`): each owns its state (what the link says), its layout, its
callbacks and its figures. A page exposes `page(view)` (the first paint, server-side, from the
link) and `register(app)` (its callbacks); app/dashboard/shell.py dispatches to them."""
