"""Views: thin — parse input with a form, call a selector or a service, render."""
