export { PageLoading as default } from '@/components/page-loading';
