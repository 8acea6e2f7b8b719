package schema

// Erratum is a change the spec repository made to a dated schema after the
// version's release. The embedded schemas are those of Commit, so every
// erratum up to it is applied; this list says which, so that no relaxation
// of a released schema goes unsaid. A test holds each one to the embedded
// text.
type Erratum struct {
	Version string
	// Commit is the upstream commit of the fix, and Date its commit date.
	Commit string
	Date   string
	// Pointer locates the changed node in the embedded schema.json, and
	// Now is its value there (JSON).
	Pointer string
	Now     string
	// Effect says what the change does to validation: "relaxes" (a value
	// the release refused is now valid), "tightens", or "none" (prose or
	// an optional member added to an open object).
	Effect string
	What   string
}

// Errata lists the changes to released schemas up to Commit.
var Errata = []Erratum{
	{
		Version: "2024-11-05", Commit: "dfc88487d491ae1f3e21963b55f56be073cc1859", Date: "2025-02-21",
		Pointer: "/definitions/SetLevelRequest/properties/params/properties/level/$ref", Now: `"#/definitions/LoggingLevel"`,
		Effect: "none", What: "the description of SetLevelRequest.params.level names notifications/message",
	},
	{
		Version: "2025-03-26", Commit: "cbf19cac0784c20a2138a2902dd54dc582a08f5e", Date: "2025-03-27",
		Pointer: "/definitions/Resource/properties/size/type", Now: `"integer"`,
		Effect: "none", What: "Resource.size (an integer) restored; an optional member of an open object",
	},
	{
		Version: "2025-03-26", Commit: "ef5ebfaaac37d6086f522aeed29015dda0403359", Date: "2025-04-22",
		Pointer: "/definitions/ClientRequest/anyOf/3/$ref", Now: `"#/definitions/ListResourceTemplatesRequest"`,
		Effect: "relaxes", What: "resources/templates/list added to the ClientRequest and ServerResult unions, from which it had been left out",
	},
	{
		Version: "2025-06-18", Commit: "35ccd9fd63501a68b733fe3ad9e187f62c7ac839", Date: "2025-09-24",
		Pointer: "/definitions/CreateMessageRequest/properties/params/properties/maxTokens/type", Now: `"integer"`,
		Effect: "none", What: "the description of CreateMessageRequest.params.maxTokens reworded",
	},
	{
		Version: "2025-06-18", Commit: "2ebb8060268e177b22598b403d6ba6764bb899ac", Date: "2026-07-27",
		Pointer: "/definitions/NumberSchema/properties/minimum/type", Now: `"number"`,
		Effect: "relaxes", What: "NumberSchema.minimum and maximum are numbers, as schema.ts says (the generated JSON said integer)",
	},
	{
		Version: "2025-11-25", Commit: "357adac47ab2654b64799f994e6db8d3df4ee19d", Date: "2026-03-24",
		Pointer: "/$defs/Task/properties/ttl/type", Now: `["integer","null"]`,
		Effect: "relaxes", What: "Task.ttl may be null (unlimited), as schema.ts says",
	},
	{
		Version: "2025-11-25", Commit: "c4c367f9f58296a7053f5c78a52fd02bfbb56a49", Date: "2026-07-27",
		Pointer: "/$defs/NumberSchema/properties/default/type", Now: `"number"`,
		Effect: "relaxes", What: "NumberSchema.minimum, maximum and default are numbers, as schema.ts says (the generated JSON said integer)",
	},
	{
		Version: "2026-07-28", Commit: "271ecc9accafdd9b83a3c869fa67c22953b2af80", Date: "2026-07-28",
		Pointer: "/$defs/SubscriptionsListenResult/properties/_meta/$ref", Now: `"#/$defs/SubscriptionsListenResultMetaObject"`,
		Effect: "none", What: "SubscriptionsListenResultMeta renamed SubscriptionsListenResultMetaObject and SubscriptionsListenResultResponse added, the same day as the release",
	},
}
