//! Tool descriptions (WIRE.md §6) and the output schema (WIRE.md §7).

use toolwire::present::{
    ActionDescription, Presenter, Schema, Type, plain_description, toon_description,
};

fn action(name: &str, desc: &str, required: &[&str], destructive: bool) -> ActionDescription {
    ActionDescription {
        name: name.into(),
        description: desc.into(),
        required: required.iter().map(|s| (*s).to_owned()).collect(),
        destructive,
    }
}

#[test]
fn toon_description_flat() {
    let actions = [
        action("list", "List invoices", &[], false),
        action("get", "Get one invoice", &["id"], false),
        action(
            "refund",
            "Refund, partially",
            &["id", "amount_cents"],
            false,
        ),
    ];
    assert_eq!(
        toon_description("billing", "Manage invoices", "action", &actions),
        "Manage invoices. Select operation via the `action` parameter.\n\n[3|]{action|desc|required}:\n  list|List invoices|\"\"\n  get|Get one invoice|id\n  refund|Refund, partially|id,amount_cents"
    );
}

#[test]
fn toon_description_no_second_period_and_tool_name_fallback() {
    let actions = [action("ping", "", &[], false)];
    assert_eq!(
        toon_description("health", "Checks things.", "op", &actions),
        "Checks things. Select operation via the `op` parameter.\n\n[1|]{action|desc|required}:\n  ping|\"\"|\"\""
    );
    assert_eq!(
        toon_description("health", "", "op", &actions),
        "health. Select operation via the `op` parameter.\n\n[1|]{action|desc|required}:\n  ping|\"\"|\"\""
    );
}

#[test]
fn toon_description_grouped_and_destructive() {
    // Grouped tools name actions `group.action`; a mix of destructive and safe actions has
    // non-uniform rows, so TOON falls back to the list form.
    let mixed = [
        action("users.list", "List users", &[], false),
        action("users.delete", "Delete a user", &["id"], true),
    ];
    assert_eq!(
        toon_description("admin", "Administration", "action", &mixed),
        "Administration. Select operation via the `action` parameter.\n\n[2|]:\n  - action: users.list\n    desc: List users\n    required: \"\"\n  - action: users.delete\n    desc: Delete a user\n    required: id\n    destructive: true"
    );
    let all = [action("purge", "Purge all", &[], true)];
    assert_eq!(
        toon_description("admin", "Administration", "action", &all),
        "Administration. Select operation via the `action` parameter.\n\n[1|]{action|desc|required|destructive}:\n  purge|Purge all|\"\"|true"
    );
}

#[test]
fn plain_description_lists_actions() {
    let actions = [
        action("list", "List invoices", &[], false),
        action("void", "Void one", &["id", "reason"], true),
    ];
    assert_eq!(
        plain_description("billing", "Manage invoices", "action", &actions),
        "Manage invoices. Select operation via the `action` parameter.\n\n- list: List invoices\n- void: Void one (requires: id, reason) [destructive]"
    );
}

fn invoice() -> Schema {
    Schema::object()
        .property("id", Schema::string())
        .property("status", Schema::string().enum_values(["paid", "pending"]))
        .property(
            "card",
            Schema::object()
                .property("number", Schema::string())
                .property("exp", Schema::string()),
        )
        .property("tags", Schema::array(Schema::string()))
        .property("note", Schema::types([Type::String, Type::Null]))
        .property("amount", Schema::integer())
        .required(["id", "status"])
}

#[test]
fn output_schema_new_protocol_item_and_collection() {
    let p = Presenter::builder("Invoice")
        .schema(invoice())
        .redact(["card.number", "amount"], None)
        .build()
        .unwrap();
    let item = r#""type":"object","properties":{"id":{"type":"string"},"status":{"type":"string","enum":["paid","pending"]},"card":{"type":"object","properties":{"number":{"type":"string"},"exp":{"type":"string"}}},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":["string","null"]},"amount":{"type":"string"}},"required":["id","status"]"#;
    assert_eq!(
        p.output_schema("2026-07-28", false),
        format!(r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema",{item}}}"#)
    );
    assert_eq!(
        p.output_schema("2026-07-28", true),
        format!(
            r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{{{item}}}}}"#
        )
    );
    // Before 2026-07-28: a collection is wrapped as {"items": [...]}; an object item is not.
    assert_eq!(
        p.output_schema("2025-06-18", true),
        format!(
            r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{{"items":{{"type":"array","items":{{{item}}}}}}},"required":["items"]}}"#
        )
    );
    assert_eq!(
        p.output_schema("2025-06-18", false),
        format!(r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema",{item}}}"#)
    );
}

#[test]
fn output_schema_drops_root_required_under_select_and_wraps_non_objects() {
    let p = Presenter::builder("Invoice")
        .schema(
            Schema::object()
                .property("id", Schema::string())
                .property(
                    "line",
                    Schema::object()
                        .property("qty", Schema::integer())
                        .required(["qty"]),
                )
                .required(["id"]),
        )
        .select(true)
        .build()
        .unwrap();
    assert_eq!(
        p.output_schema("2026-07-28", false),
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"id":{"type":"string"},"line":{"type":"object","properties":{"qty":{"type":"integer"}},"required":["qty"]}}}"#
    );
    let s = Presenter::builder("Count")
        .schema(Schema::integer())
        .build()
        .unwrap();
    assert_eq!(
        s.output_schema("2025-03-26", false),
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"value":{"type":"integer"}},"required":["value"]}"#
    );
}

#[test]
fn output_schema_of_embeds_is_the_childs() {
    let client = Presenter::builder("Client")
        .schema(
            Schema::object()
                .property("name", Schema::string())
                .property("email", Schema::string()),
        )
        .redact(["email"], None)
        .build()
        .unwrap();
    let p = Presenter::builder("Invoice")
        .schema(
            Schema::object()
                .property("id", Schema::string())
                .property("client", Schema::object())
                .property("contacts", Schema::array(Schema::any())),
        )
        .embed("client", client.clone())
        .embed("contacts", client)
        .build()
        .unwrap();
    let child =
        r#"{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"}}}"#;
    assert_eq!(
        p.output_schema("2026-07-28", false),
        format!(
            r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{{"id":{{"type":"string"}},"client":{child},"contacts":{{"type":"array","items":{child}}}}}}}"#
        )
    );
}
