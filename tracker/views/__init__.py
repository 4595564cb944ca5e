"""Views, one module per domain (the staff admin's under ``admin/``): thin — parse input with a form,
call a selector (reads) or a service (writes), render.

Domain errors are not caught here: ``tracker.error_pages`` turns them into pages. A view catches
one only to turn it into a form error on its own form.
"""
