import java.io.BufferedReader;
import java.io.InputStreamReader;
import org.apache.avro.Schema;

// Reads one Avro schema text per line and parses it with Java's Avro (what Confluent's
// serializers and AvroData use): "same" when Schema.toString gives the same text back, else
// both texts, or the parser's refusal. Exit 1 on any difference. Run by tests/avro/java_run.
public class ToStringCheck {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    int bad = 0;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) continue;
      try {
        String again = new Schema.Parser().parse(line).toString();
        if (again.equals(line)) {
          System.out.println("same " + line.substring(0, Math.min(90, line.length())));
        } else {
          bad++;
          System.out.println("DIFF\n ours: " + line + "\n java: " + again);
        }
      } catch (Exception e) {
        bad++;
        System.out.println("REFUSED " + e + "\n ours: " + line);
      }
    }
    System.exit(bad == 0 ? 0 : 1);
  }
}
