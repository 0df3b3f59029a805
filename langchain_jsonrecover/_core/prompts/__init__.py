"""Every text we show a person or send to a model."""
