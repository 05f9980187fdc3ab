// A stand-in for Confluent's caching schema-registry client, written for
// candor's VoltDB sandbox (scripts/voltdb-sandbox.sh). VoltDB 10.1.1 names
// this class in its Avro export code; constructing it (an export to Kafka
// with a schema registry, which the sandbox never configures) fails loudly
// instead of pretending to register schemas.
package io.confluent.kafka.schemaregistry.client;

import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

public class CachedSchemaRegistryClient implements SchemaRegistryClient {
    public CachedSchemaRegistryClient(List<String> baseUrls, int identityMapCapacity, Map<String, ?> configs) {
        throw new UnsupportedOperationException(
                "candor's VoltDB sandbox has no schema registry: Avro export to Kafka is not supported");
    }

    @Override
    public int register(String subject, Schema schema) {
        throw new UnsupportedOperationException("no schema registry in candor's VoltDB sandbox");
    }

    @Override
    public Schema getById(int id) {
        throw new UnsupportedOperationException("no schema registry in candor's VoltDB sandbox");
    }

    @Override
    public List<Integer> deleteSubject(String subject) {
        throw new UnsupportedOperationException("no schema registry in candor's VoltDB sandbox");
    }

    @Override
    public void reset() {
    }
}
