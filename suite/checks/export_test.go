package checks

// SchemaBreachForTest is a breach as the schema check reports it.
type SchemaBreachForTest = schemaBreach

// SetMaxSchemaMessage sets the largest message the schema check judges,
// and returns a function that restores it.
func SetMaxSchemaMessage(n int) (restore func()) {
	old := maxSchemaMessage
	maxSchemaMessage = n
	return func() { maxSchemaMessage = old }
}
