package checks

// SchemaBreachForTest is a breach as the schema check reports it.
type SchemaBreachForTest = schemaBreach
