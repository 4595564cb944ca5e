"""Forms, one module per domain: every rule on user input is here, so bad input is a form error and writes nothing."""
