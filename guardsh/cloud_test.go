package guardsh

import (
	"strings"
	"testing"
)

// TestCloudRead: remote reads of cloud CLIs, and the look-alikes that
// change something, print secrets or cannot be told apart.
func TestCloudRead(t *testing.T) {
	reads := []string{
		"aws ec2 describe-instances", "aws s3 ls s3://b", "aws --region eu-west-1 s3api list-buckets",
		"aws cloudfront get-distribution --id ABC", "aws sts get-caller-identity", "aws sqs list-queues",
		"kubectl get pods", "kubectl -n prod get pods -o wide", "kubectl describe deploy web", "kubectl logs -f web-1 --tail 50",
		"kubectl config current-context", "helm list -A", "helm status web",
		"gcloud compute instances list --project p", "gcloud storage buckets describe gs://b", "az vm list -g rg", "az group show -n rg",
		"aws s3api head-object --bucket b --key path/f", "aws apigateway help", "gcloud storage ls gs://b", "az storage blob list -c c",
		"velero backup get", "velero -n velero backup describe daily", "glab mr view 12", "wrangler d1 list", "gsutil -m ls gs://b",
		"argocd app get web", "restic -r /srv/repo snapshots", "borg list repo", "stripe customers list --limit 3",
	}
	notReads := []string{
		"aws secretsmanager get-secret-value --secret-id x", "aws ssm get-parameter --name db --with-decryption",
		"aws s3 cp a s3://b/", "aws s3 rm s3://b/x", "aws s3api get-object --bucket b --key k out", "aws ec2 terminate-instances --instance-ids i-1",
		"aws --weird x ec2 describe-instances", "aws ecr get-login-password", "aws iam list-access-keys", "aws kms list-keys",
		"kubectl delete pod web", "kubectl get secret db -o yaml", "kubectl get secrets", "kubectl get pods --token=abc",
		"kubectl exec web -- sh", "kubectl apply -f x.yaml", "kubectl config view --raw", "kubectl get \x00$X", "kubectl auth can-i list pods",
		"gcloud compute instances delete list", "gcloud secrets versions access latest --secret s", "gcloud auth print-access-token",
		"az storage account keys list -n a", "az keyvault secret show --name s", "az vm start -n x list",
		"helm get values web", "helm uninstall web", "terraform apply", "psql -c 'select 1'",
		"aws s3api put-object --bucket b --key k", "velero backup create nightly", "velero backup delete daily", "glab repo clone g/r",
		"glab variable list", "wrangler kv:key get --namespace-id=abc KEY", "gsutil rm gs://b/x", "gsutil cp gs://b/x .",
		"argocd app delete web", "argocd app sync web", "restic forget --prune", "restic dump latest /home/u/.ssh/id_rsa",
		"borg delete repo", "borg extract repo::a", "stripe customers delete cus_1", "azcopy copy ./a https://x/c",
	}
	for _, c := range reads {
		args := strings.Fields(c)
		if !cloudRead(args[0], args) {
			t.Errorf("%q: not a read", c)
		}
	}
	for _, c := range notReads {
		args := strings.Fields(c)
		if cloudRead(args[0], args) {
			t.Errorf("%q: taken for a read", c)
		}
	}
	// In a proxied session the reads run; the rest still ask.
	p := NewPolicy(ModeAuto)
	p.NetProxy = true
	for _, c := range []struct{ line, want string }{{"kubectl get pods", "allow"}, {"aws s3 ls s3://b", "allow"}, {"terraform plan", "allow"},
		{"kubectl get secret db -o yaml", "ask net.cloud"}, {"aws s3 rm s3://b/x", "ask net.cloud"}, {"terraform destroy", "ask"}} {
		v := p.Classify(Command{Args: strings.Fields(c.line), Dir: "/home/u/p", Project: "/home/u/p", Home: "/home/u"})
		if got := v.Decision.String() + " " + v.Rule; !strings.HasPrefix(got, c.want) {
			t.Errorf("proxied %q: %s, want %s", c.line, got, c.want)
		}
	}
}
