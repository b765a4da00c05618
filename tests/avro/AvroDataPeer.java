import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.confluent.connect.avro.AvroData;
import io.confluent.connect.avro.AvroDataConfig;
import io.confluent.kafka.serializers.NonRecordContainer;
import io.debezium.transforms.outbox.JsonSchemaData;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.util.HashMap;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Schema;

// The expanded samples of avro_samples (lines with "payload") through Debezium 3.6.1's own
// JsonSchemaData (the Event Router's inference, its default null behavior and field namer) and
// Confluent's AvroData (compiled from confluentinc/schema-registry's source, default config) and
// Avro's GenericDatumWriter: the schema text and the value's bytes must equal outboxd's. The
// Connect worker and the registry are not involved. Run by tests/avro/peer_run.
public class AvroDataPeer {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();  // The payloads: strict, as the router reads them.
    ObjectMapper lines = JsonMapper.builder()  // The sample lines ("expected" may hold Infinity).
        .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    int bad = 0;
    int count = 0;
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode sample = lines.readTree(line);
      if (!sample.has("payload")) continue;
      count++;
      String name = sample.get("name").asText();
      String ours = mapper.writeValueAsString(sample.get("schema"));
      String oursHex = sample.get("framed").asText().substring(10);  // After the 5-byte header.
      JsonNode node = mapper.readTree(sample.get("payload").asText());
      JsonSchemaData data = new JsonSchemaData();
      // "[]" keeps its string with a null schema, as EventRouterDelegate does.
      Schema schema = node.isArray() && node.isEmpty() ? null : data.toConnectSchema("payload", node);
      Object value = schema == null ? sample.get("payload").asText() : data.toConnectData(node, schema);
      AvroData avroData = new AvroData(new AvroDataConfig(new HashMap<String, Object>()));
      org.apache.avro.Schema avro = avroData.fromConnectSchema(schema);
      Object avroValue = avroData.fromConnectData(schema, value);
      if (avroValue instanceof NonRecordContainer) {
        avroValue = ((NonRecordContainer) avroValue).getValue();
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
      new GenericDatumWriter<Object>(avro).write(avroValue, encoder);
      encoder.flush();
      StringBuilder hex = new StringBuilder();
      for (byte b : bytes.toByteArray()) hex.append(String.format("%02x", b));
      if (avro.toString().equals(ours) && hex.toString().equals(oursHex)) {
        System.out.println("same " + name);
      } else {
        bad++;
        System.out.println("DIFF " + name + "\n ours:  " + ours + " " + oursHex + "\n peer:  "
            + avro + " " + hex);
      }
    }
    System.out.println(count + " expanded samples, " + bad + " differences");
    System.exit(bad == 0 && count > 0 ? 0 : 1);
  }
}
